package tuner_test

import (
	"context"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/fusiontune/fusiontune/tuner/verdict"

	"github.com/fusiontune/fusiontune/tuner/pass"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/experiments"
	"github.com/fusiontune/fusiontune/internal/inputerr"
	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner"
	"github.com/fusiontune/fusiontune/tuner/sampler"
)

// slowBelowLandscapes opens landscapes whose searches sleep slowDelay
// while the running config's fusion.k is below slowBelowK: the region
// holding the quality optimum (k around 52) is slow.
type slowBelowLandscapes struct{ landscapes }

const slowBelowK = 60

func (f *slowBelowLandscapes) Open(string, io.Writer) (backend.Backend, error) {
	return &slowBelow{newLandscape()}, nil
}

type slowBelow struct{ *landscape }

func (b *slowBelow) Search(ctx context.Context, req backend.SearchRequest) (backend.SearchResponse, error) {
	b.mu.Lock()
	k, _ := b.live["fusion.k"].(float64)
	b.mu.Unlock()
	if k < slowBelowK {
		time.Sleep(slowDelay)
	}
	return b.landscape.Search(ctx, req)
}

// TestConstrainSamplerSearchesWhereConstraintsHold: the same seeded TPE
// study, told the trials that miss latency.p95 <= 100ms as infeasible,
// proposes fewer trials in the slow region than the unconstrained one
// (which is drawn to the quality optimum there), and its winner meets the
// constraint; the recorded primary scores are the trials' real ones.
func TestConstrainSamplerSearchesWhereConstraintsHold(t *testing.T) {
	if testing.Short() {
		t.Skip("sleeps in the slow region")
	}
	study := func(constrain bool) (slow int, out *tuner.Outcome) {
		so := &sampler.Options{Space: []experiments.SpaceParam{{Param: "fusion.k", Type: "int", Low: 10, High: 100}},
			Sampler: sampler.TPE, Seed: 5, Trials: 14, StartupTrials: 4, Base: experiments.Params{"fusion.weights.bm25": 0.3, "fusion.method": "rrf"}}
		c := runConfig(t, nil, so)
		c.Backend = &slowBelowLandscapes{}
		c.Queries = landscapeQueries(4)
		c.Eval = pass.EvalOptions{Concurrency: 4}
		c.Constraints = parseGates(t, "latency.p95 <= 100ms")
		c.ConstrainSampler = constrain
		out, err := tuner.Run(context.Background(), c)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range out.Leaderboard.Trials {
			if k, _ := e.Params["fusion.k"].(float64); k < slowBelowK {
				slow++
			}
		}
		return slow, out
	}
	freeSlow, _ := study(false)
	boundSlow, bound := study(true)
	t.Logf("trials in the slow region: %d of 14 unconstrained, %d constrained", freeSlow, boundSlow)
	if boundSlow >= freeSlow {
		t.Errorf("constrained sampler proposed %d slow trials, unconstrained %d: want fewer", boundSlow, freeSlow)
	}
	best, ok := bound.Best()
	if k, _ := best.Params["fusion.k"].(float64); !ok || k < slowBelowK {
		t.Errorf("constrained winner %q (k %v, %v): want one meeting the constraint", best.Name, k, ok)
	}
}

// TestConstrainedObjective: a trial meeting the constraints is told its
// primary; one missing them less than any that meets them, the nearer
// the higher; a failed trial its primary.
func TestConstrainedObjective(t *testing.T) {
	run := newRun(t, t.TempDir())
	obj := verdict.ConstrainedObjective(run, parseGates(t, "NDCG@10 >= 0.5", "Recall@100 >= 0.8"))
	rec := func(ndcg, recall float64, status string) runs.TrialRecord {
		return runs.TrialRecord{Name: "t", Status: status, Primary: ndcg, Mode: "replay",
			Summary: runs.Summary{Scorecard: map[string]float64{"NDCG@10": ndcg, "Recall@100": recall}}}
	}
	for _, tc := range []struct {
		name string
		rec  runs.TrialRecord
		want float64
	}{
		{"meets both", rec(0.6, 0.9, runs.StatusOK), 0.6},
		{"misses one by 20%", rec(0.4, 0.9, runs.StatusOK), -1.2},
		{"misses both", rec(0.4, 0.4, runs.StatusOK), -1.7},
		{"failed", rec(0, 0, runs.StatusFailed), 0},
	} {
		got, err := obj(tc.rec, nil)
		if err != nil || got < tc.want-1e-12 || got > tc.want+1e-12 {
			t.Errorf("%s: told %v (%v), want %v", tc.name, got, err, tc.want)
		}
	}
}

// TestConstrainSamplerRefusedWithoutLiveLatency: a latency constraint
// with replayed trials, or the setting without constraints, is an input
// error before any run is made.
func TestConstrainSamplerRefusedWithoutLiveLatency(t *testing.T) {
	for _, tc := range []struct {
		name        string
		constraints []string
		replay      *tuner.ReplayOptions
	}{
		{"no constraints", nil, nil},
		{"latency with replay", []string{"latency.p95 <= 40ms"}, &tuner.ReplayOptions{Mode: tuner.ModeAuto}},
	} {
		c := runConfig(t, landscapeTrials(), nil)
		c.Constraints, c.Replay, c.ConstrainSampler = parseGates(t, tc.constraints...), tc.replay, true
		_, err := tuner.Run(context.Background(), c)
		var ie *inputerr.Error
		if err == nil || !errors.As(err, &ie) {
			t.Errorf("%s: %v, want an input error", tc.name, err)
		}
		if rs, _ := c.Store.List(); len(rs) != 0 {
			t.Errorf("%s: %d runs were made", tc.name, len(rs))
		}
	}
}
