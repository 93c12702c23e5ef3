package stats_test

import (
	"math"
	"testing"

	"github.com/fusiontune/fusiontune/metrics/stats"
)

// TestPowerFormulas checks the budget arithmetic against hand-computed
// values: z(0.975) = 1.959964, z(0.8) = 0.841621, so at α = 0.05 and 80%
// power (z sum 2.801585) an sd of 0.13 on 100 queries detects 0.036421, and
// detecting 0.02 needs ⌈(2.801585·0.13/0.02)²⌉ = ⌈331.6⌉ = 332 queries.
func TestPowerFormulas(t *testing.T) {
	near(t, "MDE", stats.MDE(0.13, 100, 0.05, 0.8), 2.801585*0.13/10, 1e-6)
	for _, tc := range []struct {
		effect, sd, a float64
		want          int
	}{
		{0.02, 0.13, 0.05, 332},
		{0.01, 0.13, 0.05, 1327},
		{0.05, 0.13, 0.05, 54},
		// Bonferroni over 26 trials: z(1-0.05/52) = 3.101862, sum 3.943483,
		// (3.943483·0.13/0.02)² = 657.03.
		{0.02, 0.13, 0.05 / 26, 658},
		// Tiny budgets stop at what the sign-flip test can reject with:
		// 6 pairs at α = 0.05 (2/64 < 0.05), 11 at 0.05/26 (2/2048).
		{0.05, 0.01, 0.05, 6},
		{0.05, 0.01, 0.05 / 26, 11},
	} {
		if got := stats.QueriesNeeded(tc.effect, tc.sd, tc.a, 0.8); got != tc.want {
			t.Errorf("QueriesNeeded(%g, %g, %g) = %d, want %d", tc.effect, tc.sd, tc.a, got, tc.want)
		}
	}
	if got := stats.SplitBreakEven(0.05, 0.5); got != 9 {
		t.Errorf("SplitBreakEven(0.05, 0.5) = %d, want 9", got)
	}
	near(t, "SD", stats.SD([]float64{1, 2, 3, 4}), math.Sqrt(5.0/3), 1e-15)
}
