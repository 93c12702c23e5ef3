package tuner_test

import (
	"context"
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/fusiontune/fusiontune/tuner/pass"

	"github.com/fusiontune/fusiontune/tuner/scoring"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/experiments"
	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner"
)

// countingBackend is the engine backend counting its per-query searches
// and the requests it was sent in batches.
type countingBackend struct {
	*engineBackend
	searches, batches, batched atomic.Int64
}

func (c *countingBackend) Search(ctx context.Context, req backend.SearchRequest) (backend.SearchResponse, error) {
	c.searches.Add(1)
	return c.engineBackend.Search(ctx, req)
}

func (c *countingBackend) SearchBatch(ctx context.Context, reqs []backend.SearchRequest, answer func(backend.BatchAnswer)) error {
	err := c.engineBackend.SearchBatch(ctx, reqs, answer)
	if !errors.Is(err, backend.ErrBatchUnsupported) {
		c.batches.Add(1)
		c.batched.Add(int64(len(reqs)))
	}
	return err
}

// TestReplayPassesUseBatch checks that a replay's live passes — its
// collection and its verification pass (the winner applied and
// restarted, two more verified trials as fusion variants) — go to a
// backend with batch search as one batch each, that a query failing in
// the batch is run again on its own (with its retries, recorded as live
// records it), that live mode searches per query, and that every trial's
// record and per-query results (latency aside) are those of the same run
// on a backend searched per query.
func TestReplayPassesUseBatch(t *testing.T) {
	qs, corpus := demoQueries(t)
	failing := qs[5].Text
	trials := []experiments.TrialSpec{
		replayTrialSpec("baseline", experiments.Params{"fusion.k": 60.0}),
		replayTrialSpec("k=10", experiments.Params{"fusion.k": 10.0}),
		replayTrialSpec("k=20,bm25=0.7", experiments.Params{"fusion.k": 20.0, "fusion.weights.bm25": 0.7, "fusion.weights.dense": 0.3}),
		replayTrialSpec("linear", experiments.Params{"fusion.method": "linear", "fusion.normalization": "min_max"}),
		replayTrialSpec("k=5", experiments.Params{"fusion.k": 5.0}),
	}
	type outcome struct {
		recs    map[string]runs.TrialRecord
		results map[string][]runs.QueryResult
		b       *countingBackend
		log     string
	}
	sweepOn := func(t *testing.T, mode tuner.Mode, noBatch bool) outcome {
		b := &countingBackend{engineBackend: newEngineBackend(t, corpus)}
		b.NoBatch = noBatch
		b.Fail = func(req backend.SearchRequest) error {
			if req.Query == failing {
				return errors.New("shard unavailable")
			}
			return nil
		}
		run := newRun(t, filepath.Join(t.TempDir(), "runs"))
		var log strings.Builder
		_, err := tuner.Sweep(context.Background(), tuner.Options{
			Trials: trials, Queries: qs, Backend: b, Scorer: demoScorer(t), Run: run,
			Eval:   pass.EvalOptions{Retries: 1, Backoff: 1, OnQueryError: scoring.QueryErrorZero},
			Replay: &tuner.ReplayOptions{Mode: mode, Resolve: b.Resolve, Log: &log},
		})
		if err != nil {
			t.Fatalf("%s (batch off: %v): %v", mode, noBatch, err)
		}
		o := outcome{recs: readRecords(t, run), results: map[string][]runs.QueryResult{}, b: b, log: log.String()}
		for name, r := range o.recs {
			res, err := run.QueryResults(r.Index)
			if err != nil {
				t.Fatal(err)
			}
			for i := range res {
				res[i].LatencyMS = 0 // measured
				// The run's id aside: ".../collect-000/q1".
				res[i].RequestID = strings.TrimPrefix(res[i].RequestID, run.ID())
			}
			o.results[name] = res
		}
		return o
	}
	batch := sweepOn(t, tuner.ModeReplay, false)
	perQuery := sweepOn(t, tuner.ModeReplay, true)
	live := sweepOn(t, tuner.ModeLive, false)

	// Two passes, one batch each; the failing query alone per query,
	// twice in each pass (its retry).
	if got := batch.b.batches.Load(); got != 2 {
		t.Errorf("replay: %d batches, want 2 (the collection, the verification pass)\n%s", got, batch.log)
	}
	if got, want := batch.b.batched.Load(), int64(2*len(qs)); got != want {
		t.Errorf("replay: %d requests in batches, want %d", got, want)
	}
	if got := batch.b.searches.Load(); got != 4 {
		t.Errorf("replay: %d searches per query, want 4 (the failing query and its retry, in each pass)", got)
	}
	if got := perQuery.b.searches.Load(); got != int64(2*len(qs)+2) {
		t.Errorf("replay without batch search: %d searches, want %d", got, 2*len(qs)+2)
	}
	if live.b.batches.Load() != 0 || live.b.searches.Load() < int64(len(trials)*len(qs)) {
		t.Errorf("live: %d batches, %d searches: want per-query searches only", live.b.batches.Load(), live.b.searches.Load())
	}
	verified := 0
	for _, tr := range trials {
		got, want := batch.recs[tr.Name], perQuery.recs[tr.Name]
		if got.Mode == runs.TrialVerified {
			verified++
		}
		if got.Status != runs.StatusOK || got.Failed != 1 || got.Mode != want.Mode || got.Primary != want.Primary ||
			!reflect.DeepEqual(got.Scorecard, want.Scorecard) || !reflect.DeepEqual(got.Categories, want.Categories) {
			t.Errorf("trial %s: batch %s/%s/%d failed/%v, per query %s/%s/%d/%v", tr.Name, got.Status, got.Mode, got.Failed, got.Primary,
				want.Status, want.Mode, want.Failed, want.Primary)
		}
		if a, b := batch.results[tr.Name], perQuery.results[tr.Name]; len(a) != len(qs) || !reflect.DeepEqual(a, b) {
			t.Errorf("trial %s: per-query results differ between batch and per-query searches", tr.Name)
			for i := range min(len(a), len(b)) {
				if !reflect.DeepEqual(a[i], b[i]) {
					t.Errorf("first: batch %+v\nper query %+v", a[i], b[i])
					break
				}
			}
		}
		if l := live.recs[tr.Name]; l.Primary != got.Primary {
			t.Errorf("trial %s: live primary %v, replay %v", tr.Name, l.Primary, got.Primary)
		}
	}
	if verified != 3 {
		t.Errorf("%d trials verified, want 3", verified)
	}
}
