package main_test

import (
	"os"
	"strings"
	"testing"
)

// TestApplySmokesOnTheRunsGoldenSet: after the golden set's judgments
// change, tune apply still re-evaluates the promoted trial on the golden
// set its run was scored with (the copy the run keeps), so the smoke
// evaluation reproduces the recorded scores and the promotion succeeds.
func TestApplySmokesOnTheRunsGoldenSet(t *testing.T) {
	golden, err := os.ReadFile("../../experiments/demo/golden.json")
	if err != nil {
		t.Fatal(err)
	}
	corpus, err := os.ReadFile("../../experiments/demo/corpus.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	e := newSweepEnv(t, sweepSettings+"dataset:\n  path: golden.json\n  corpus: corpus.jsonl\nbackend:\n  config: deploy/engine.yaml\n  engine:\n    dense:\n      model: hash-384\n")
	e.write("golden.json", string(golden))
	e.write("corpus.jsonl", string(corpus))
	exp := e.write("exp.json", `{"baseline": {"params": {"fusion.k": 60}}, "experiments": [{"name": "k=20", "params": {"fusion.k": 20}}]}`)
	if stdout, stderr, code := e.run("--experiments", exp); code != 0 {
		t.Fatalf("sweep: exit %d\n%s\n%s", code, stdout, stderr)
	}
	changed := strings.ReplaceAll(string(golden), `"relevance": "high"`, `"relevance": 1`)
	if changed == string(golden) {
		t.Fatal("the golden set did not change")
	}
	e.write("golden.json", changed)
	stdout, stderr, code := e.run("apply", "latest", "k=20", "--force")
	if code != 0 {
		t.Fatalf("apply: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if want := "note: the smoke evaluation uses the golden set run "; !strings.Contains(stderr, want) {
		t.Errorf("stderr lacks %q:\n%s", want, stderr)
	}
}
