package stats_test

import (
	"math"
	"testing"

	"github.com/fusiontune/fusiontune/metrics/stats"
)

func near(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	if math.Abs(got-want) > tol || math.IsNaN(got) != math.IsNaN(want) {
		t.Errorf("%s = %.10g, want %.10g (±%g)", what, got, want, tol)
	}
}

func diffs(x, y []float64) []float64 {
	d := make([]float64, len(x))
	for i := range x {
		d[i] = x[i] - y[i]
	}
	return d
}

// darwin holds Darwin's Zea mays data as differences (crossed minus
// self-fertilized heights, eighths of an inch) from Fisher, The Design of
// Experiments (1935), §17; the same 15 numbers are the example of SciPy's
// scipy.stats.wilcoxon documentation.
var darwin = []float64{6, 8, 14, 16, 23, 24, 28, 29, 41, -48, 49, 56, 60, -67, 75}

func TestSignedRankPublishedValues(t *testing.T) {
	for _, tc := range []struct {
		name                string
		d                   []float64
		th                  stats.Thresholds
		w, p, pGreater, tol float64
		exact               bool
	}{
		{
			// R, ?wilcox.test, "One-sample test", data of Hollander & Wolfe
			// (1973), p. 29f (depression scale, first and second visit):
			// wilcox.test(x, y, paired = TRUE, alternative = "greater")
			// gives V = 40, p-value = 0.01953 (two-sided: 0.03906).
			name: "R wilcox.test Hollander-Wolfe depression",
			d: diffs([]float64{1.83, 0.50, 1.62, 2.48, 1.68, 1.88, 1.55, 3.06, 1.30},
				[]float64{0.878, 0.647, 0.598, 2.05, 1.06, 1.29, 1.06, 3.14, 1.29}),
			th: stats.DefaultThresholds(), w: 40, p: 0.0390625, pGreater: 0.01953125, tol: 1e-12, exact: true,
		},
		{
			// SciPy scipy.stats.wilcoxon docs (Darwin's data): exact
			// two-sided p = 0.041259765625 (statistic min(W+, W-) = 24, so
			// W+ = 96); alternative="greater": p = 0.020629882812.
			name: "SciPy wilcoxon exact Darwin",
			d:    darwin, th: stats.DefaultThresholds(), w: 96, p: 0.041259765625, pGreater: 0.020629882812, tol: 1e-11, exact: true,
		},
		{
			// SciPy docs: wilcoxon(d, method="approx") gives p =
			// 0.04088813291185591 (normal approximation, no continuity
			// correction): z = (24 - 60) / sqrt(15·16·31/24).
			name: "SciPy wilcoxon approx Darwin",
			d:    darwin, th: stats.Thresholds{ExactMaxN: 1, ContinuityCorrection: false},
			w: 96, p: 0.04088813291185591, pGreater: 0.04088813291185591 / 2, tol: 1e-12,
		},
		{
			// R: wilcox.test(d, exact = FALSE) on Darwin's data, continuity
			// correction on (R's default): z = (96 - 60 - 0.5) / 17.6068,
			// p = 0.04377 (one-sided 0.02189).
			name: "R wilcox.test normal approximation with continuity correction",
			d:    darwin, th: stats.Thresholds{ExactMaxN: 1, ContinuityCorrection: true},
			w: 96, p: 0.043772323763041195, pGreater: 0.021886161881520594, tol: 1e-12,
		},
		{
			// Ties force the normal approximation with mid-ranks and the
			// tie correction (Hollander & Wolfe 1999, eq. 3.13):
			// |d| = 1, 2,2, 3,3,3, 4, 5, 6, 7 -> ranks 1, 2.5,2.5, 5,5,5, 7..10;
			// W+ = 55 - 7 = 48, E = 27.5,
			// Var = 10·11·21/24 - ((2³-2) + (3³-3))/48 = 95.625,
			// z = (48 - 27.5 - 0.5)/sqrt(95.625) = 2.04524, p = 0.040831.
			name: "ties corrected",
			d:    []float64{1, 2, 2, 3, 3, 3, -4, 5, 6, 7}, th: stats.DefaultThresholds(),
			w: 48, p: 0.040831205677037685, pGreater: 0.020415602838518843, tol: 1e-12,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := stats.SignedRank(tc.d, tc.th)
			near(t, "W", r.W, tc.w, 1e-9)
			near(t, "P", r.P, tc.p, tc.tol)
			near(t, "PGreater", r.PGreater, tc.pGreater, tc.tol)
			if r.Exact != tc.exact {
				t.Errorf("Exact = %v, want %v", r.Exact, tc.exact)
			}
			if r.Warning != "" {
				t.Errorf("unexpected warning %q", r.Warning)
			}
		})
	}
}

// TestSignedRankCriticalValues checks the exact distribution against the
// table of critical values of the signed-rank statistic (one-tailed
// α = 0.025, two-tailed 0.05), e.g. Table A.4 of Hollander, Wolfe & Chicken,
// Nonparametric Statistical Methods: the critical value T is the largest
// with P(W ≤ T) ≤ 0.025.
func TestSignedRankCriticalValues(t *testing.T) {
	for _, tc := range []struct{ n, crit int }{
		{6, 0}, {7, 2}, {8, 3}, {9, 5}, {10, 8}, {11, 10}, {12, 13}, {13, 17}, {14, 21}, {15, 25}, {20, 52},
	} {
		// Differences 1..n with the ranks summing to T negative give
		// W- = T, so PGreater = P(W+ ≥ n(n+1)/2 - T) = P(W ≤ T).
		lower := func(T int) float64 {
			d := make([]float64, tc.n)
			for i := range d {
				d[i] = float64(i + 1)
			}
			for r := tc.n; r >= 1 && T > 0; r-- {
				if r <= T {
					d[r-1] = -d[r-1]
					T -= r
				}
			}
			return stats.SignedRank(d, stats.DefaultThresholds()).PGreater
		}
		if p := lower(tc.crit); p > 0.025 {
			t.Errorf("n=%d: P(W ≤ %d) = %.5f, want ≤ 0.025", tc.n, tc.crit, p)
		}
		if p := lower(tc.crit + 1); p <= 0.025 {
			t.Errorf("n=%d: P(W ≤ %d) = %.5f, want > 0.025", tc.n, tc.crit+1, p)
		}
	}
}

func TestSignedRankZerosAndTooFew(t *testing.T) {
	r := stats.SignedRank([]float64{0, 0, 1, -2, 3, 0, 4, 5}, stats.DefaultThresholds())
	if r.N != 5 || r.Zeros != 3 {
		t.Errorf("N=%d Zeros=%d, want 5 and 3", r.N, r.Zeros)
	}
	if r.Warning != "too few non-zero pairs: 5 (need 6)" || !math.IsNaN(r.P) {
		t.Errorf("warning %q, p %v", r.Warning, r.P)
	}
	// Zeros dropped: the same as the test without them.
	a := stats.SignedRank([]float64{0, 1, -2, 3, 0, 4, 5, 6}, stats.DefaultThresholds())
	b := stats.SignedRank([]float64{1, -2, 3, 4, 5, 6}, stats.DefaultThresholds())
	if a.P != b.P || a.W != b.W {
		t.Errorf("zeros changed the result: %+v vs %+v", a, b)
	}
}
