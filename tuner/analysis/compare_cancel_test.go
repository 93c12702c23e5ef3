package analysis_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/fusiontune/fusiontune/tuner/analysis"

	"github.com/fusiontune/fusiontune/metrics/stats"
	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner/promote"
)

// TestCompareAndPolicyCancelled: tune compare's tests (CompareRunsContext),
// the promotion policy's (promote.CheckContext, whose comparison is not in
// the leaderboard) and the held-out confirmation's (ConfirmContext), run
// with a permutation count no setting allows (hours of work), stop within
// a second of their context being cancelled — as SIGINT or SIGTERM cancel
// tune's — with an error wrapping context.Canceled.
func TestCompareAndPolicyCancelled(t *testing.T) {
	huge := analysis.StatsOptions{Seed: 42, Thresholds: stats.Thresholds{Permutations: 1 << 40}}
	run, recs := statsRun(t, map[string]float64{"better": 0.08, "noise": 0.005, "worse": -0.08})
	other, _ := statsRun(t, map[string]float64{"better": 0.08, "noise": 0.005, "worse": -0.08})
	lb := runs.NewLeaderboard("primary", nil, recs)
	base, _ := lb.Find("baseline")
	better, _ := lb.Find("better")
	results := func(r *runs.Run, e runs.Entry) []runs.QueryResult {
		res, err := r.QueryResults(e.Index)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	chosen, ref := results(run, better), results(run, base)
	for _, tc := range []struct {
		name string
		call func(ctx context.Context) error
	}{
		{"compare", func(ctx context.Context) error {
			_, err := analysis.CompareRunsContext(ctx, run, base, other, better, analysis.CompareOptions{Stats: huge})
			return err
		}},
		{"promotion policy", func(ctx context.Context) error {
			_, err := promote.CheckContext(ctx, run, lb, better, nil, promote.Policy{Stats: huge})
			return err
		}},
		{"held-out confirmation", func(ctx context.Context) error {
			h := &runs.HeldOut{Trial: better.Name}
			return analysis.ConfirmContext(ctx, h, chosen, ref, base.Name, 0.08, huge)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) { wantCancelled(t, 300*time.Millisecond, tc.call) })
	}
}

// wantCancelled runs call, cancels its context after d and fails t unless
// call returns an error wrapping context.Canceled within a second.
func wantCancelled(t *testing.T, d time.Duration, call func(context.Context) error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- call(ctx) }()
	time.Sleep(d)
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
	case <-time.After(time.Second):
		t.Fatal("still running a second after cancellation")
	}
}
