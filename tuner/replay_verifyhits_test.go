package tuner_test

import (
	"context"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/fusiontune/fusiontune/tuner/scoring"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/backend/fusion"
	"github.com/fusiontune/fusiontune/experiments"
	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner"
)

// hitsAsked is an engine backend that notes the hits each batch of
// verification requests asked for.
type hitsAsked struct {
	*engineBackend
	mu     sync.Mutex
	verify []int // K of each verification request
}

func (h *hitsAsked) SearchBatch(ctx context.Context, reqs []backend.SearchRequest, answer func(backend.BatchAnswer)) error {
	h.mu.Lock()
	for _, r := range reqs {
		if strings.Contains(r.RequestID, "/verify-") {
			h.verify = append(h.verify, r.K)
		}
	}
	h.mu.Unlock()
	return h.engineBackend.SearchBatch(ctx, reqs, answer)
}

// TestVerificationAsksWhatItReads: a verification pass in document mode
// asks for the hits the scorecard and the recorded top read (the demo
// scorecard's deepest cutoff, 50), not a live trial's 100, and records
// every verified trial as a live trial records it: the same top hits,
// labels, scores, primary and routing on every query; a trial ranking
// chunks asks for all 100 (chunks collapse into fewer documents).
func TestVerificationAsksWhatItReads(t *testing.T) {
	qs, corpus := demoQueries(t)
	b := newEngineBackend(t, corpus)
	trials := fiveFusionTrials()
	live := readRecordsResults(t, sweepWith(t, b, b.Resolve, qs, trials, tuner.ModeLive))
	h := &hitsAsked{engineBackend: b}
	verified := readRecordsResults(t, sweepWith(t, h, b.Resolve, qs, trials, tuner.ModeReplay))
	if len(h.verify) == 0 {
		t.Fatal("no verification request seen")
	}
	for _, k := range h.verify {
		if k != 50 {
			t.Fatalf("a verification request asked for %d hits, want 50 (the scorecard's deepest cutoff)", k)
		}
	}
	for _, tr := range trials {
		l, v := live[tr.Name], verified[tr.Name]
		if v.rec.Mode != runs.TrialVerified || len(v.results) != len(qs) || len(l.results) != len(qs) {
			t.Fatalf("trial %s: mode %s, %d verified and %d live results for %d queries", tr.Name, v.rec.Mode, len(v.results), len(l.results), len(qs))
		}
		for i := range l.results {
			a, b := l.results[i], v.results[i]
			a.RequestID, a.LatencyMS, b.RequestID, b.LatencyMS = "", 0, "", 0
			if !reflect.DeepEqual(a, b) {
				t.Fatalf("trial %s, query %s: verified %+v, live %+v", tr.Name, a.QueryID, b, a)
			}
		}
	}
	chunked := []experiments.TrialSpec{
		replayTrialSpec("passage", experiments.Params{"fusion.method": "rrf", "passage": true}),
		replayTrialSpec("passage-k5", experiments.Params{"fusion.method": "rrf", "fusion.k": 5.0, "passage": true}),
	}
	h = &hitsAsked{engineBackend: b}
	sweepWith(t, h, b.Resolve, qs, chunked, tuner.ModeReplay)
	if len(h.verify) == 0 {
		t.Fatal("no verification request seen for the passage trials")
	}
	for _, k := range h.verify {
		if k != 100 {
			t.Fatalf("a passage trial's verification asked for %d hits, want 100", k)
		}
	}
}

type recordResults struct {
	rec     runs.TrialRecord
	results []runs.QueryResult
}

// sweepWith runs trials on b in mode (replay: settings resolved by
// resolve, every trial verified) and returns the run.
func sweepWith(t *testing.T, b backend.Backend, resolve func(map[string]any) (fusion.Settings, error), qs []scoring.Query, trials []experiments.TrialSpec, mode tuner.Mode) *runs.Run {
	t.Helper()
	run := newRun(t, filepath.Join(t.TempDir(), "runs"))
	o := tuner.Options{Trials: trials, Queries: qs, Backend: b, Scorer: demoScorer(t), Run: run}
	if mode != tuner.ModeLive {
		o.Replay = &tuner.ReplayOptions{Mode: mode, Resolve: resolve, Verify: len(trials)}
	}
	if _, err := tuner.Sweep(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	return run
}

// readRecordsResults reads a run's trial records and per-query results by
// trial name.
func readRecordsResults(t *testing.T, run *runs.Run) map[string]recordResults {
	t.Helper()
	recs, err := run.Trials()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]recordResults{}
	for _, r := range recs {
		res, err := run.QueryResults(r.Index)
		if err != nil {
			t.Fatal(err)
		}
		out[r.Name] = recordResults{rec: r, results: res}
	}
	return out
}
