package stats_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/fusiontune/fusiontune/metrics/stats"
)

// TestFlipsIntervalInvertsTheTest checks, on seeded simulated differences
// (enumerated and Monte Carlo), that the interval at level 1-a is exactly
// the set of mean differences the randomization test does not reject at
// a: its ends are accepted, points just beyond them rejected, and 0 is
// outside it exactly when P(0) < a.
func TestFlipsIntervalInvertsTheTest(t *testing.T) {
	th := stats.DefaultThresholds()
	th.Permutations = 2000
	for seed := range uint64(80) {
		rng := rand.New(rand.NewPCG(seed, 9))
		n := 6 + int(seed%40) // 6..16 enumerated, above sampled
		d := make([]float64, n)
		for i := range d {
			d[i] = 0.02*float64(seed%5) + 0.1*rng.NormFloat64()
			if i%7 == 3 {
				d[i] = 0 // zero differences take part
			}
		}
		f := stats.SignFlips(d, int64(seed), th)
		for _, a := range []float64{0.05, 0.01, 0.05 / 26, 0.2, 0.0005} {
			lo, hi := f.Interval(a)
			if !(lo <= f.Mean && f.Mean <= hi) {
				t.Fatalf("seed %d a %g: interval [%g, %g] misses the mean %g", seed, a, lo, hi, f.Mean)
			}
			if excl, rej := lo > 0 || hi < 0, f.P(0) < a; excl != rej {
				t.Fatalf("seed %d n %d a %g: interval [%g, %g] excludes 0 = %v but P(0) = %g < a = %v", seed, n, a, lo, hi, excl, f.P(0), rej)
			}
			if f.P(1e9) >= a {
				continue // too few pairs to bound the interval at this level
			}
			step := 1e-6 * (1 + math.Abs(hi-lo))
			if f.P(hi) < a || f.P(lo) < a {
				t.Errorf("seed %d a %g: an end of [%g, %g] is rejected (p %g, %g)", seed, a, lo, hi, f.P(lo), f.P(hi))
			}
			if p := f.P(hi + step); p >= a {
				t.Errorf("seed %d a %g: beyond the upper end %g still accepted (p %g)", seed, a, hi, p)
			}
			if p := f.P(lo - step); p >= a {
				t.Errorf("seed %d a %g: beyond the lower end %g still accepted (p %g)", seed, a, lo, p)
			}
		}
	}
}

// TestFlipsDarwin: Fisher's exact p = 1726/32768 = 0.0527 for Darwin's
// differences, so the 95% interval contains 0 and the 90% one does not.
func TestFlipsDarwin(t *testing.T) {
	f := stats.SignFlips(darwin, 1, stats.DefaultThresholds())
	near(t, "P(0)", f.P(0), 1726.0/32768, 1e-15)
	if lo, hi := f.Interval(0.05); !(lo <= 0 && 0 <= hi) {
		t.Errorf("95%% interval [%g, %g] excludes 0", lo, hi)
	}
	if lo, _ := f.Interval(0.10); lo <= 0 {
		t.Errorf("90%% interval starts at %g, want > 0", lo)
	}
}

// TestDecideNeverContradicts is the property behind every "sig" shown: on
// many seeded simulated families of paired samples (1 to 30 trials, 10 to
// 120 queries, no to large effects, each correction), a comparison is
// significant exactly when its interval excludes 0 and exactly when its
// adjusted p-value is below α, and the interval's level is the one the
// correction leaves. The rule it replaces (Holm-corrected Wilcoxon marks
// beside an unadjusted 95% bootstrap interval) fails this on these
// samples: see TestOldRuleContradicts.
func TestDecideNeverContradicts(t *testing.T) {
	th := stats.DefaultThresholds()
	th.Permutations = 1000
	const alpha = 0.05
	var sig, total int
	for seed := range uint64(120) {
		family, _ := simulatedFamily(seed, th)
		for _, method := range []string{stats.Holm, stats.BH, stats.None} {
			ds, err := stats.Decide(family, method, alpha)
			if err != nil {
				t.Fatal(err)
			}
			for i, d := range ds {
				total++
				excl := d.Low > 0 || d.High < 0
				if d.Significant != excl || d.Significant != (d.PAdjusted < alpha) {
					t.Fatalf("seed %d %s trial %d: significant %v, interval [%g, %g], adjusted p %g",
						seed, method, i, d.Significant, d.Low, d.High, d.PAdjusted)
				}
				if d.Significant {
					sig++
				}
				if want := 1 - alpha*d.P/d.PAdjusted; math.Abs(d.Level-want) > 1e-12 {
					t.Fatalf("seed %d %s trial %d: level %g, want %g", seed, method, i, d.Level, want)
				}
			}
		}
	}
	// The simulation must exercise both outcomes.
	if sig == 0 || sig == total {
		t.Fatalf("%d of %d significant: the simulation does not test the property", sig, total)
	}
}

// TestOldRuleContradicts shows that the simulation of
// TestDecideNeverContradicts does produce contradictions under the old
// rule, so that test would catch them.
func TestOldRuleContradicts(t *testing.T) {
	th := stats.DefaultThresholds()
	th.Permutations = 1000
	contradictions := 0
	for seed := uint64(0); seed < 120 && contradictions == 0; seed++ {
		family, ds := simulatedFamily(seed, th)
		ps := make([]float64, len(family))
		for i, d := range ds {
			ps[i] = stats.SignedRank(d, th).P
		}
		adj, err := stats.Adjust(ps, stats.Holm)
		if err != nil {
			t.Fatal(err)
		}
		for i, d := range ds {
			iv := stats.PairedBootstrap(d, int64(seed), th)
			if excl := iv.Low > 0 || iv.High < 0; excl != (adj[i] < 0.05) {
				contradictions++
			}
		}
	}
	if contradictions == 0 {
		t.Fatal("the old rule never contradicted itself on 120 samples")
	}
}

// simulatedFamily draws a seeded family of paired differences: m trials
// over n queries, a few with a true effect.
func simulatedFamily(seed uint64, th stats.Thresholds) ([]stats.Flips, [][]float64) {
	rng := rand.New(rand.NewPCG(seed, 17))
	m := 1 + rng.IntN(30)
	n := 10 + rng.IntN(110)
	var family []stats.Flips
	var ds [][]float64
	for j := range m {
		effect := []float64{0, 0, 0.01, 0.03, 0.06}[rng.IntN(5)]
		d := make([]float64, n)
		for i := range d {
			d[i] = effect + 0.12*rng.NormFloat64()
		}
		ds = append(ds, d)
		family = append(family, stats.SignFlips(d, int64(seed)*100+int64(j), th))
	}
	return family, ds
}

func TestRule(t *testing.T) {
	for _, tc := range []struct {
		method string
		m      int
		want   string
	}{
		{stats.Holm, 26, "paired randomization test of the mean, holm over 26 trials, α = 0.05; interval inverts the test at the adjusted level"},
		{stats.None, 1, "paired randomization test of the mean, one comparison, no correction, α = 0.05; interval inverts the test at 1-α"},
		{stats.None, 4, "paired randomization test of the mean, no correction over 4 trials, α = 0.05; interval inverts the test at 1-α"},
	} {
		t.Run(fmt.Sprint(tc.method, tc.m), func(t *testing.T) {
			if got := stats.Rule(tc.method, tc.m, 0.05); got != tc.want {
				t.Errorf("got %q\nwant %q", got, tc.want)
			}
		})
	}
}
