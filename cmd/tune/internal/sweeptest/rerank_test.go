package sweeptest_test

import (
	"fmt"
	"testing"

	"github.com/fusiontune/fusiontune/backend/rerank/reranktest"
	"github.com/fusiontune/fusiontune/cmd/tune/internal/sweeptest"
	"github.com/fusiontune/fusiontune/tuner"
)

// TestSweepRerankStage: on the demo with a reranker on loopback, a sweep
// over rerank.window × rerank.weight runs the reranking trials live (their
// rankings are not their fusion's: no replay), the reranker scores each
// (query, document) pair once, and a second sweep over the same grid
// sends it none, from the cache, with the same scores.
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
	moved := false
	for name, tr := range trials {
		if name == "fused" {
			continue
		}
		if tr.Mode != "live" || tr.Status != "ok" {
			t.Errorf("%s: mode %s, status %s, want live and ok", name, tr.Mode, tr.Status)
		}
		moved = moved || tr.Primary != trials["fused"].Primary
	}
	if !moved {
		t.Error("no reranked trial scores apart from the fused baseline")
	}
	total, distinct := srv.Scored()
	// The window-10 trials' pairs hold the window-5 ones: each of the
	// demo's 90 queries has at least 10 hits.
	if total != distinct || distinct != 90*10 {
		t.Errorf("reranker scored %d pairs (%d distinct), want each of 900 once", total, distinct)
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
}
