package main_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSweepWritesReport runs a real sweep, which leaves report.html in the
// run directory, then re-renders it with `tune report`: to a file, to
// stdout and into the run directory, always the same bytes.
func TestSweepWritesReport(t *testing.T) {
	e := newSweepEnv(t, sweepSettings)
	exp := e.write("small.json", `{
  "baseline": {"params": {"fusion.method": "rrf", "fusion.k": 60, "chunk.size": 0}},
  "experiments": [{"name": "k=10", "params": {"fusion.k": 10}}, {"name": "k=200", "params": {"fusion.k": 200}}]
}`)
	if stdout, stderr, code := e.run("--experiments", exp); code != 0 {
		t.Fatalf("sweep: exit %d\n%s\n%s", code, stdout, stderr)
	}
	dirs := e.runDirs()
	if len(dirs) != 1 {
		t.Fatalf("run directories: %v", dirs)
	}
	swept, err := os.ReadFile(filepath.Join(dirs[0], "report.html"))
	if err != nil {
		t.Fatalf("the sweep wrote no report: %v", err)
	}
	for _, want := range []string{"<!DOCTYPE html>", "k=200", "<svg", "fusion.k"} {
		if !bytes.Contains(swept, []byte(want)) {
			t.Errorf("report.html lacks %q", want)
		}
	}

	out := filepath.Join(e.dir, "out.html")
	stdout, stderr, code := e.run("report", "--out", out)
	if code != 0 || strings.TrimSpace(stdout) != out {
		t.Fatalf("tune report --out: exit %d, stdout %q\n%s", code, stdout, stderr)
	}
	again, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(swept, again) {
		t.Error("tune report --out differs from the sweep's report.html")
	}
	stdout, stderr, code = e.run("report", filepath.Base(dirs[0]), "--out", "-")
	if code != 0 || stdout != string(swept) {
		t.Errorf("tune report RUN --out -: exit %d, %d bytes on stdout (want %d)\n%s", code, len(stdout), len(swept), stderr)
	}
	os.Remove(filepath.Join(dirs[0], "report.html"))
	stdout, _, code = e.run("report", "latest")
	if code != 0 || strings.TrimSpace(stdout) != filepath.Join("runs", filepath.Base(dirs[0]), "report.html") {
		t.Errorf("tune report latest: exit %d, stdout %q", code, stdout)
	}
	if got, _ := os.ReadFile(filepath.Join(dirs[0], "report.html")); !bytes.Equal(got, swept) {
		t.Error("tune report RUN rewrote report.html with different bytes")
	}
}

func TestReportUsageErrors(t *testing.T) {
	e := newSweepEnv(t, sweepSettings)
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no runs", []string{"report"}, 2, "no runs recorded"},
		{"two runs", []string{"report", "a", "b"}, 2, "at most one RUN"},
		{"unknown flag", []string{"report", "--bogus"}, 2, "bogus"},
		{"no such run directory", []string{"report", "../x"}, 2, `runs: no run directory "../x"`},
		{"not a run directory", []string{"report", ".."}, 2, `runs: ".." is not a run directory (no manifest.json)`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, stderr, code := e.run(tc.args...)
			if code != tc.code || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, stderr %q; want exit %d with %q", code, stderr, tc.code, tc.want)
			}
		})
	}
}
