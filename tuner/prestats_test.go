package tuner_test

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	"github.com/fusiontune/fusiontune/experiments"
	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner"
)

// TestRunPrecomputesStatistics: the paired tests against the baseline,
// the category intervals, the result keys (trials with the same results)
// and the judged-only values of a sweep's trials are computed while the
// trials run (the step after the last trial computes none of them, nor
// reads a trial's scores again), and
// they are those the statistics step computes alone,
// so the leaderboard is the same.
func TestRunPrecomputesStatistics(t *testing.T) {
	trials := landscapeTrials()
	// The baseline last: the trials before it are compared once it is
	// recorded.
	trials = append(trials[1:], trials[0], experiments.TrialSpec{Name: "k=20",
		Params: experiments.Params{"fusion.k": 20.0, "fusion.weights.bm25": 0.5, "fusion.method": "rrf"}})
	for _, metrics := range [][]string{nil, {"NDCG@10"}} {
		t.Run(fmt.Sprint(metrics), func(t *testing.T) {
			c := runConfig(t, trials, nil)
			c.Stats.Metrics = metrics
			before := tuner.ComputedAfter()
			out, err := tuner.Run(context.Background(), c)
			if err != nil {
				t.Fatal(err)
			}
			checkFinished(t, out, len(trials), 0)
			if n := tuner.ComputedAfter() - before; n != 0 {
				t.Errorf("the step after the last trial computed %d tests, intervals, keys and judged-only values, want 0 (all precomputed)", n)
			}
			// The statistics step alone, from the run's records.
			recs, err := out.Run.Trials()
			if err != nil {
				t.Fatal(err)
			}
			alone := runs.NewLeaderboard("", nil, recs)
			if err := tuner.Significance(context.Background(), out.Run, &alone, c.Stats); err != nil {
				t.Fatal(err)
			}
			if err := tuner.SetJudgedOnly(context.Background(), out.Run, &alone, tuner.JudgmentsOf(c.Queries), c.Scorer); err != nil {
				t.Fatal(err)
			}
			for _, want := range alone.Trials {
				got, err := out.Leaderboard.Find(want.Name)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(got.Comparison, want.Comparison) || !reflect.DeepEqual(got.MetricComparisons, want.MetricComparisons) ||
					!reflect.DeepEqual(got.CategoryIntervals, want.CategoryIntervals) || !reflect.DeepEqual(got.JudgedOnly, want.JudgedOnly) {
					t.Errorf("trial %s: precomputed %+v %+v %+v %v, alone %+v %+v %+v %v", want.Name, got.Comparison, got.MetricComparisons, got.CategoryIntervals, got.JudgedOnly,
						want.Comparison, want.MetricComparisons, want.CategoryIntervals, want.JudgedOnly)
				}
			}
		})
	}
}
