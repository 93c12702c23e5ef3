package analysis

import (
	"context"
	"fmt"

	"github.com/fusiontune/fusiontune/experiments"
	"github.com/fusiontune/fusiontune/internal/inputerr"
	"github.com/fusiontune/fusiontune/runs"
)

// CompareRefs compares two recorded trials named RUN[:TRIAL] (ResolveTrial)
// in store (CompareRunsContext); stats gives the statistics options for
// the first run's seed (experiments.DefaultSeed when it recorded none).
func CompareRefs(ctx context.Context, store *runs.Store, refA, refB string, stats func(seed int64) StatsOptions, o CompareOptions) (runs.TrialComparison, error) {
	ra, ea, err := runs.ResolveTrial(store, refA)
	if err != nil {
		return runs.TrialComparison{}, err
	}
	rb, eb, err := runs.ResolveTrial(store, refB)
	if err != nil {
		return runs.TrialComparison{}, err
	}
	seed := ra.Manifest.Seed
	if seed == 0 {
		seed = experiments.DefaultSeed
	}
	o.Stats = stats(seed)
	return CompareRunsContext(ctx, ra, ea, rb, eb, o)
}

// PlanRun is PlanBudget from run's recorded power (the comparison of its
// best trial with its reference); a run that recorded none is an
// inputerr.Error.
func PlanRun(effect float64, run *runs.Run, o StatsOptions) (Budget, error) {
	lb, err := run.ReadLeaderboard()
	if err != nil {
		return Budget{}, err
	}
	if lb.Power == nil {
		return Budget{}, inputerr.Wrap(fmt.Errorf("run %s records no power (no comparison of its best trial with a reference): run tune plan without RUN for the prior", run.ID()))
	}
	return PlanBudget(effect, lb.Power, run.ID(), o), nil
}
