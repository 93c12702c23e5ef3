package sweeptest_test

import (
	"fmt"
	"testing"

	"github.com/fusiontune/fusiontune/backend/rerank/reranktest"
	"github.com/fusiontune/fusiontune/cmd/tune/internal/sweeptest"
	"github.com/fusiontune/fusiontune/tuner"
)

// TestSweepRerankStage: on the demo with a reranker on loopback, a sweep
// over rerank.window × rerank.weight collects the candidate lists once
// with the reranker's score of every candidate and replays every window
// and weight from them, the best verified live (replay equals live, or
// the run fails); the reranker scores each (query, candidate) pair once,
// a second sweep sends it none (the cache) with the same scores, and
// --mode live agrees with the replay trial by trial.
func TestSweepRerankStage(t *testing.T) {
	srv := reranktest.Start()
	defer srv.Close()
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	t.Chdir(t.TempDir())
	writeFiles(t, map[string]string{
		"tune.yaml": fmt.Sprintf("runs_dir: runs\neval:\n  concurrency: 4\nbackend:\n  kind: embedded\n  engine:\n    rerank: {url: %q, model: overlap}\n", srv.URL),
		"rerank.json": `{
  "baseline": {"name": "fused", "params": {"rerank.enabled": false}},
  "grid": {"rerank.enabled": [true], "rerank.window": [5, 10], "rerank.weight": [0.5, 1]}
}`})
	first := sweeptest.Sweep(t, "tune.yaml", "rerank.json", sweeptest.Options{Mode: "auto", Verify: tuner.DefaultVerify})
	trials := first.Trials(t)
	if len(trials) != 5 {
		t.Fatalf("%d trials, want 5", len(trials))
	}
	moved, replayed, verified := false, 0, 0
	for name, tr := range trials {
		if tr.Status != "ok" {
			t.Errorf("%s: status %s", name, tr.Status)
		}
		switch tr.Mode {
		case "replay":
			replayed++
		case "verified":
			verified++
		}
		moved = moved || tr.Primary != trials["fused"].Primary
	}
	if !moved || replayed+verified < 3 || verified == 0 {
		t.Errorf("reranked trials apart from fused %v, replayed %d, verified %d: want some apart, 3 or more replayed, one verified\n%s", moved, replayed, verified, first.Log)
	}
	total, distinct := srv.Scored()
	// One collection: every candidate of every query once.
	if total != distinct || total < 90*10 {
		t.Errorf("reranker scored %d pairs (%d distinct), want each once, at least 900", total, distinct)
	}
	second := sweeptest.Sweep(t, "tune.yaml", "rerank.json", sweeptest.Options{Mode: "auto", Verify: tuner.DefaultVerify})
	if again, _ := srv.Scored(); again != total {
		t.Errorf("second sweep sent the reranker %d pairs, want none (all cached)", again-total)
	}
	for name, tr := range second.Trials(t) {
		if tr.Primary != trials[name].Primary {
			t.Errorf("%s: primary %v in the second sweep, %v in the first", name, tr.Primary, trials[name].Primary)
		}
	}
	live := sweeptest.Sweep(t, "tune.yaml", "rerank.json", sweeptest.Options{Mode: "live"})
	for name, tr := range live.Trials(t) {
		if tr.Mode != "live" || tr.Primary != trials[name].Primary {
			t.Errorf("%s: live %s primary %v, replayed %v", name, tr.Mode, tr.Primary, trials[name].Primary)
		}
	}
	if again, _ := srv.Scored(); again != total {
		t.Errorf("the live sweep sent the reranker %d pairs, want none (all cached)", again-total)
	}
}
