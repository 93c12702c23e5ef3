package stats_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/fusiontune/fusiontune/metrics/stats"
)

// The calibration tests check the decision rule itself on simulated golden
// sets (seeded, so the figures are fixed; docs/results.md "Statistics" quotes them).
// Per-query differences are normal with sd 0.1, roughly the spread of
// per-query ΔnDCG between fusion configs; the promotion rule is "the best
// trial's comparison is significant and its Δ > 0".

const calibrationSets = 1000

// promoted applies the promotion rule to the best (highest mean) trial of
// a family decided by stats.Decide.
func promoted(t *testing.T, family []stats.Flips, method string) bool {
	t.Helper()
	ds, err := stats.Decide(family, method, stats.DefaultAlpha)
	if err != nil {
		t.Fatal(err)
	}
	best := 0
	for i, d := range ds {
		if d.Mean > ds[best].Mean {
			best = i
		}
	}
	return ds[best].Significant && ds[best].Mean > 0
}

func noise(rng *rand.Rand, n int, mean, sd float64) []float64 {
	d := make([]float64, n)
	for i := range d {
		d[i] = mean + sd*rng.NormFloat64()
	}
	return d
}

// TestCalibrationNullSweeps: 1,000 golden sets of 40 queries where each of
// 10 trials is the baseline plus noise. The rule must promote in at most
// α = 5% of them: the best trial with Holm over the family, and select,
// then confirm (best on 40 dev queries, one comparison on 40 held-out).
// Flips are 1,000 per test here to keep the test fast.
func TestCalibrationNullSweeps(t *testing.T) {
	t.Parallel()
	th := stats.DefaultThresholds()
	th.Permutations = 1000
	rng := rand.New(rand.NewPCG(2026, 17))
	var holm, confirm int
	for set := range calibrationSets {
		var family []stats.Flips
		for j := range 10 {
			family = append(family, stats.SignFlips(noise(rng, 40, 0, 0.1), int64(set*10+j), th))
		}
		if promoted(t, family, stats.Holm) {
			holm++
		}
		// The dev winner on the held-out queries: under the null, new noise.
		held := stats.SignFlips(noise(rng, 40, 0, 0.1), int64(set), th)
		if promoted(t, []stats.Flips{held}, stats.None) {
			confirm++
		}
	}
	rh, rc := float64(holm)/calibrationSets, float64(confirm)/calibrationSets
	t.Logf("false-promotion rate: %.3f (Holm over 10 trials), %.3f (select, then confirm)", rh, rc)
	if rh > stats.DefaultAlpha || rc > stats.DefaultAlpha {
		t.Errorf("false-promotion rate %.3f (Holm) / %.3f (confirm), want <= %g", rh, rc, stats.DefaultAlpha)
	}
}

// TestCalibrationCoverage: the 95% interval (a family of one) covers the
// true mean difference in 93–97% of 1,000 simulated sets of 30 queries,
// at the default settings.
func TestCalibrationCoverage(t *testing.T) {
	t.Parallel()
	th := stats.DefaultThresholds()
	rng := rand.New(rand.NewPCG(2026, 18))
	const delta = 0.03
	covered := 0
	for set := range calibrationSets {
		f := stats.SignFlips(noise(rng, 30, delta, 0.1), int64(set), th)
		ds, err := stats.Decide([]stats.Flips{f}, stats.None, stats.DefaultAlpha)
		if err != nil {
			t.Fatal(err)
		}
		if ds[0].Low <= delta && delta <= ds[0].High {
			covered++
		}
	}
	c := float64(covered) / calibrationSets
	t.Logf("coverage of the 95%% interval: %.3f", c)
	if c < 0.93 || c > 0.97 {
		t.Errorf("coverage %.3f, want 0.93–0.97", c)
	}
}

// TestCalibrationPower: a true effect of 3 standard errors (3·sd/√n) is
// promoted in at least 80% of 1,000 simulated sets of 40 queries, at the
// default settings, by the one pre-planned comparison of select, then
// confirm (the normal approximation gives Φ(3 − 1.96) = 85%).
func TestCalibrationPower(t *testing.T) {
	t.Parallel()
	th := stats.DefaultThresholds()
	rng := rand.New(rand.NewPCG(2026, 19))
	const n, sd = 40, 0.1
	effect := 3 * sd / math.Sqrt(n)
	hits := 0
	for set := range calibrationSets {
		f := stats.SignFlips(noise(rng, n, effect, sd), int64(set), th)
		if promoted(t, []stats.Flips{f}, stats.None) {
			hits++
		}
	}
	p := float64(hits) / calibrationSets
	t.Logf("power at 3 standard errors: %.3f", p)
	if p < 0.8 {
		t.Errorf("power %.3f, want >= 0.80", p)
	}
}
