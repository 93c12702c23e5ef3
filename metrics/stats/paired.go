package stats

import (
	"context"
	"fmt"
)

// Paired is the full paired comparison of x against y (x[i] and y[i] are
// one query's scores under two configurations): the mean difference with
// its bootstrap interval, the Wilcoxon signed-rank test and the
// randomization test, all on d = x - y. Flips is the randomization test's
// distribution, from which Decide draws the decision and its interval; the
// bootstrap interval and the Wilcoxon test are secondary.
type Paired struct {
	N             int
	Delta         Interval
	Wilcoxon      Wilcoxon
	Randomization Randomization
	Flips         Flips
	Seed          int64
}

// Compare runs the paired comparison of x against y with seed (used by the
// bootstrap and the randomization test). x and y must have equal lengths.
func Compare(x, y []float64, seed int64, th Thresholds) (Paired, error) {
	return CompareContext(context.Background(), x, y, seed, th)
}

// CompareContext is Compare that stops with ctx's error once ctx is done:
// the bootstrap and the randomization test look at ctx every few hundred
// resamples, so a cancelled comparison returns within milliseconds.
func CompareContext(ctx context.Context, x, y []float64, seed int64, th Thresholds) (Paired, error) {
	if len(x) != len(y) {
		return Paired{}, fmt.Errorf("stats: paired samples differ in length (%d and %d)", len(x), len(y))
	}
	d := make([]float64, len(x))
	for i := range x {
		d[i] = x[i] - y[i]
	}
	delta, err := bootstrapMean(ctx, d, seed, th.WithDefaults())
	if err != nil {
		return Paired{}, err
	}
	f, err := SignFlipsContext(ctx, d, seed, th)
	if err != nil {
		return Paired{}, err
	}
	return Paired{
		N:             len(d),
		Delta:         delta,
		Wilcoxon:      SignedRank(d, th),
		Randomization: Randomization{P: f.P(0), Exact: f.Exact, Permutations: f.Permutations, Seed: seed},
		Flips:         f,
		Seed:          seed,
	}, nil
}
