package tuner_test

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	"github.com/fusiontune/fusiontune/tuner/analysis"

	"github.com/fusiontune/fusiontune/tuner/scoring"

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
			before := analysis.ComputedAfter()
			out, err := tuner.Run(context.Background(), c)
			if err != nil {
				t.Fatal(err)
			}
			checkFinished(t, out, len(trials), 0)
			if n := analysis.ComputedAfter() - before; n != 0 {
				t.Errorf("the step after the last trial computed %d tests, intervals, keys and judged-only values, want 0 (all precomputed)", n)
			}
			checkSameStatistics(t, out.Leaderboard, statisticsAlone(t, out, c))
		})
	}
}

// statisticsAlone is the leaderboard of out's run with its paired tests,
// intervals and judged-only values computed from the run's records alone
// (the statistics step run by itself), under c.
func statisticsAlone(t *testing.T, out *tuner.Outcome, c tuner.Config) runs.Leaderboard {
	t.Helper()
	recs, err := out.Run.Trials()
	if err != nil {
		t.Fatal(err)
	}
	alone := runs.NewLeaderboard("", nil, recs)
	if err := analysis.Significance(context.Background(), out.Run, &alone, c.Stats); err != nil {
		t.Fatal(err)
	}
	if err := analysis.SetJudgedOnly(context.Background(), out.Run, &alone, scoring.JudgmentsOf(c.Queries), c.Scorer); err != nil {
		t.Fatal(err)
	}
	return alone
}

// checkSameStatistics fails t for each trial of alone whose paired tests,
// intervals or judged-only values differ in got.
func checkSameStatistics(t *testing.T, got, alone runs.Leaderboard) {
	t.Helper()
	for _, want := range alone.Trials {
		e, err := got.Find(want.Name)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(e.Comparison, want.Comparison) || !reflect.DeepEqual(e.MetricComparisons, want.MetricComparisons) ||
			!reflect.DeepEqual(e.CategoryIntervals, want.CategoryIntervals) || !reflect.DeepEqual(e.JudgedOnly, want.JudgedOnly) {
			t.Errorf("trial %s: in the run %+v %+v %+v %v, alone %+v %+v %+v %v", want.Name, e.Comparison, e.MetricComparisons, e.CategoryIntervals, e.JudgedOnly,
				want.Comparison, want.MetricComparisons, want.CategoryIntervals, want.JudgedOnly)
		}
	}
}
