package analysis_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/tuner/analysis"

	"github.com/fusiontune/fusiontune/internal/inputerr"
	"github.com/fusiontune/fusiontune/runs"
)

// TestCompareRefsAndPlanRun: two trials named RUN:TRIAL are compared with
// the first run's seed; a run without recorded power is an input error
// for tune plan.
func TestCompareRefsAndPlanRun(t *testing.T) {
	run, recs := statsRun(t, map[string]float64{"better": 0.08, "noise": 0.005, "worse": -0.08})
	if err := run.WriteLeaderboard(runs.NewLeaderboard("primary", nil, recs)); err != nil {
		t.Fatal(err)
	}
	store, err := runs.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	var seed int64
	stats := func(s int64) analysis.StatsOptions { seed = s; return analysis.StatsOptions{Seed: s} }
	c, err := analysis.CompareRefs(context.Background(), store, run.Dir+":baseline", run.Dir+":better", stats, analysis.CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if seed != 42 || c.A.Trial != "baseline" || c.B.Trial != "better" {
		t.Errorf("seed %d, compared %q with %q", seed, c.A.Trial, c.B.Trial)
	}
	if _, err := analysis.CompareRefs(context.Background(), store, run.Dir+":nope", run.Dir, stats, analysis.CompareOptions{}); err == nil {
		t.Error("an unknown trial: no error")
	}
	_, err = analysis.PlanRun(0.02, run, analysis.StatsOptions{})
	var ie *inputerr.Error
	if !errors.As(err, &ie) || !strings.Contains(err.Error(), "records no power") {
		t.Errorf("no power: %v", err)
	}
}
