package main_test

import (
	"strings"
	"testing"
)

// TestWeaviateTrialErrors checks the weaviate kind's parameter
// translation at the CLI: an experiment naming what Weaviate cannot
// express (fusion.k other than 59, alpha with fusion.weights, a z_score
// normalization) fails with exit 2 naming the file, line and trial,
// before any server is reached or run directory written.
func TestWeaviateTrialErrors(t *testing.T) {
	e := newSweepEnv(t, "")
	e.write("corpus.jsonl", `{"_id": "d1", "text": "a b c"}`+"\n")
	e.write("tune.yaml", "runs_dir: runs\nbackend:\n  kind: weaviate\n  weaviate: {url: \"http://127.0.0.1:1\", model: hash-16, corpus: corpus.jsonl}\n")
	exp := e.write("exp.yaml", `baseline:
  params: {alpha: 0.5, fusionType: rankedFusion}
experiments:
  - name: own-k
    params: {fusion.k: 60}
  - name: both
    params: {alpha: 0.5, fusion.weights.dense: 1}
  - name: zscore
    params: {fusion.method: linear, fusion.normalization: z_score}
`)
	_, stderr, code := e.run("--experiments", exp)
	if code != 2 {
		t.Fatalf("exit %d, want 2\n%s", code, stderr)
	}
	for _, want := range []string{
		`exp.yaml:4:5: experiments[0].params: trial "own-k": fusion.k: Weaviate fixes the RRF constant`,
		`exp.yaml:6:5: experiments[1].params: trial "both": fusion.weights: give alpha or fusion.weights.bm25/dense, not both`,
		`exp.yaml:8:5: experiments[2].params: trial "zscore": fusion.normalization: Weaviate normalizes by min-max only`,
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if strings.Contains(stderr, `"baseline"`) {
		t.Errorf("the valid baseline was rejected:\n%s", stderr)
	}
	if dirs := e.runDirs(); len(dirs) != 0 {
		t.Errorf("run directory written: %v", dirs)
	}
}
