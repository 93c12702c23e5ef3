package report_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/runs/report"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// fixture is a run recorded by a real sweep on the demo dataset (see
// testdata/README.md for the command).
const fixture = "testdata/run"

// loadFixture copies the fixture run into a temporary directory, so that a
// test may change it, and loads it.
func loadFixture(t *testing.T) *runs.Run {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "run")
	if err := os.CopyFS(dir, os.DirFS(fixture)); err != nil {
		t.Fatal(err)
	}
	run, err := runs.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	return run
}

func render(t *testing.T, run *runs.Run) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := report.Render(&b, run, report.DefaultOptions()); err != nil {
		t.Fatalf("Render: %v", err)
	}
	return b.Bytes()
}

// checkGolden compares got with testdata/name, rewriting it with -update.
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		out := filepath.Join(t.TempDir(), name)
		os.WriteFile(out, got, 0o644)
		t.Errorf("report differs from %s (got written to %s; run with -update if the change is intended)", path, out)
	}
}

func TestRenderGolden(t *testing.T) {
	run := loadFixture(t)
	checkGolden(t, "TestRenderGolden.golden.html", render(t, run))
}
