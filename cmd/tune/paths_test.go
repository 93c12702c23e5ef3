package main_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSettingsPathsRelativeToTheirFile writes a settings file with
// relative paths (golden set, corpus, runs directory, engine cache) in
// directory A and runs the sweep from directory B: every path resolves
// against A, every trial succeeds, and the run lands in A's runs
// directory. A missing input is refused (exit 2) before any run directory
// exists, naming the setting's place, the path as written and as resolved.
func TestSettingsPathsRelativeToTheirFile(t *testing.T) {
	e := newSweepEnv(t, "")
	a := filepath.Join(e.dir, "A")
	b := filepath.Join(e.dir, "B")
	for _, d := range []string{a, b} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	copyTree(t, "../../experiments/demo", filepath.Join(a, "data"))
	e.write("A/tune.yaml", "dataset:\n  path: data/golden.json\n  corpus: data/corpus.jsonl\nruns_dir: runs\nbackend:\n  engine:\n    cache_dir: cache\n    dense:\n      model: hash-64\n")
	e.write("A/exp.json", `{"baseline": {"params": {"fusion.k": 60}}, "experiments": [{"name": "bm25-only", "params": {"retrievers": ["bm25"]}}]}`)

	cmd, stdout, stderr := e.command("--config", "../A/tune.yaml", "--experiments", "../A/exp.json")
	cmd.Dir = b
	if err := cmd.Run(); err != nil {
		t.Fatalf("sweep from B: %v\nstdout:\n%s\nstderr:\n%s", err, stdout, stderr)
	}
	if n := strings.Count(stdout.String(), " ok ("); n != 2 {
		t.Errorf("%d trials ok, want 2:\n%s", n, stdout)
	}
	runsDirs, _ := filepath.Glob(filepath.Join(a, "runs", "2*"))
	if len(runsDirs) != 1 {
		t.Errorf("runs in A/runs: %v", runsDirs)
	}
	if _, err := os.Stat(filepath.Join(a, "cache")); err != nil {
		t.Errorf("engine cache_dir not resolved against A: %v", err)
	}
	if left, _ := os.ReadDir(b); len(left) != 0 {
		t.Errorf("files written in the working directory B: %v", left)
	}

	// A missing input: exit 2, nothing created, the setting named.
	e.write("A/missing.yaml", "dataset:\n  path: data/golden.json\n  corpus: nope/corpus.jsonl\nruns_dir: runs2\n")
	cmd, _, stderr = e.command("--config", "../A/missing.yaml", "--experiments", "../A/exp.json")
	cmd.Dir = b
	if code := exitCodeOf(t, cmd.Run()); code != 2 {
		t.Errorf("missing corpus: exit %d, want 2\n%s", code, stderr)
	}
	want := `../A/missing.yaml:3:11: dataset.corpus: "nope/corpus.jsonl" (resolved against the settings file's directory to ../A/nope/corpus.jsonl): no such file or directory`
	if !strings.Contains(stderr.String(), want) {
		t.Errorf("stderr lacks %q:\n%s", want, stderr)
	}
	if _, err := os.Stat(filepath.Join(a, "runs2")); !os.IsNotExist(err) {
		t.Errorf("runs directory created for a refused sweep: %v", err)
	}

	// The environment's paths resolve against the working directory.
	cmd, _, stderr = e.command("--config", "../A/missing.yaml", "--experiments", "../A/exp.json")
	cmd.Dir = b
	cmd.Env = append(cmd.Env, "FUSIONTUNE_DATASET_CORPUS=gone.jsonl")
	if code := exitCodeOf(t, cmd.Run()); code != 2 {
		t.Errorf("missing corpus from the environment: exit %d, want 2\n%s", code, stderr)
	}
	want = `FUSIONTUNE_DATASET_CORPUS: dataset.corpus: "gone.jsonl" (resolved against the working directory ` + b + `): no such file or directory`
	if !strings.Contains(stderr.String(), want) {
		t.Errorf("stderr lacks %q:\n%s", want, stderr)
	}
}
