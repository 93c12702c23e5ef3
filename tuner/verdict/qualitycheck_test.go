package verdict_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fusiontune/fusiontune/tuner/verdict"

	"github.com/fusiontune/fusiontune/runs"
)

// TestGatesFailed: a check whose gates passed is no error; one with
// failed gates names them and counts them.
func TestGatesFailed(t *testing.T) {
	if err := verdict.GatesFailed(&runs.Quality{GatesPass: true, Gates: []runs.GateCheck{{Gate: "a", Pass: true}}}); err != nil {
		t.Errorf("passed: %v", err)
	}
	q := &runs.Quality{Gates: []runs.GateCheck{{Gate: "NDCG@10 >= 0.5", Pass: false}, {Gate: "b", Pass: true}, {Gate: "c", Pass: false}}}
	if err := verdict.GatesFailed(q); err == nil || err.Error() != "2 of 3 gates failed: NDCG@10 >= 0.5, c" {
		t.Errorf("failed: %v", err)
	}
}

// TestExportBaseline: the run's baseline file is copied byte for byte; a
// run without one is an error naming --export-baseline, nothing written.
func TestExportBaseline(t *testing.T) {
	store, err := runs.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	run, err := store.Create(runs.Manifest{Tool: "tune"}, time.Unix(1700000000, 0))
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "baseline.json")
	if err := verdict.ExportBaseline(run, out); err == nil || !strings.HasPrefix(err.Error(), "--export-baseline: ") {
		t.Errorf("no baseline: %v", err)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a file was written")
	}
	want := []byte(`{"x": 1}` + "\n")
	if err := os.WriteFile(filepath.Join(run.Dir, runs.BaselineFile), want, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := verdict.ExportBaseline(run, out); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(out); string(got) != string(want) {
		t.Errorf("exported %q, want %q", got, want)
	}
}
