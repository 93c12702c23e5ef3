package stats_test

import (
	"math"
	"testing"

	"github.com/fusiontune/fusiontune/metrics/stats"
)

func closeTo(a, b, tol float64) bool { return math.Abs(a-b) <= tol*math.Max(1, math.Abs(b)) }

// TestSignTest checks the exact two-sided p-values R's binom.test(x, n)
// prints (binom.test(9, 10): 0.02148; binom.test(7, 10): 0.3438), which
// are 2·Σ_{i≤min} C(n, i)/2^n: 22/1024 and 352/1024.
func TestSignTest(t *testing.T) {
	tests := []struct {
		name         string
		wins, losses int
		want         float64
	}{
		{"9 of 10", 9, 1, 22.0 / 1024},
		{"1 of 10 (symmetric)", 1, 9, 22.0 / 1024},
		{"7 of 10", 7, 3, 352.0 / 1024},
		{"even split caps at 1", 5, 5, 1},
		{"no pairs", 0, 0, 1},
		{"10 of 10", 10, 0, 2.0 / 1024},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := stats.SignTest(tt.wins, tt.losses); !closeTo(got, tt.want, 1e-12) {
				t.Errorf("SignTest(%d, %d) = %v, want %v", tt.wins, tt.losses, got, tt.want)
			}
		})
	}
}

// TestMcNemar checks R's documented mcnemar.test example (presidential
// approval, Agresti 1990, p. 350: 794, 86, 150, 570): "McNemar's
// chi-squared = 16.818, df = 1, p-value = 4.115e-05". The exact p-value
// of the same table, 2·P(Binomial(236, 1/2) ≤ 86), computed with exact
// fractions, is 3.7159361e-05.
func TestMcNemar(t *testing.T) {
	stat, p := stats.McNemarChiSquare(150, 86)
	if !closeTo(stat, 16.818, 1e-4) || !closeTo(p, 4.115e-05, 1e-3) {
		t.Errorf("McNemarChiSquare(150, 86) = %v, %v, want 16.818, 4.115e-05", stat, p)
	}
	if got := stats.SignTest(150, 86); !closeTo(got, 3.715936139571442e-05, 1e-9) {
		t.Errorf("exact McNemar = %v, want 3.7159361e-05", got)
	}
	if stat, p := stats.McNemarChiSquare(0, 0); stat != 0 || p != 1 {
		t.Errorf("no discordant pairs: %v, %v", stat, p)
	}
}

// TestBetaSuperiority: P(θ > 1/2) under Beta(w+1, l+1) is
// P(Binomial(w+l+1, 1/2) ≤ w): Beta(10, 2) gives 1 − 12/2048, Beta(4, 8)
// gives 232/2048, and no data gives the prior's 1/2.
func TestBetaSuperiority(t *testing.T) {
	tests := []struct {
		wins, losses int
		want         float64
	}{
		{9, 1, 1 - 12.0/2048},
		{3, 7, 232.0 / 2048},
		{0, 0, 0.5},
		{150, 86, 0.9999855330524119},
	}
	for _, tt := range tests {
		if got := stats.BetaSuperiority(tt.wins, tt.losses); !closeTo(got, tt.want, 1e-9) {
			t.Errorf("BetaSuperiority(%d, %d) = %v, want %v", tt.wins, tt.losses, got, tt.want)
		}
	}
}

func TestCompareBinary(t *testing.T) {
	control := []bool{true, false, false, true, false, false}
	treatment := []bool{true, true, true, false, false, true}
	b, err := stats.CompareBinary(control, treatment)
	if err != nil {
		t.Fatal(err)
	}
	if b.Wins != 3 || b.Losses != 1 || b.Ties != 2 {
		t.Errorf("wins, losses, ties = %d, %d, %d, want 3, 1, 2", b.Wins, b.Losses, b.Ties)
	}
	if !closeTo(b.ExactP, 10.0/16, 1e-12) || !closeTo(b.PSuperior, 26.0/32, 1e-12) {
		t.Errorf("exact p %v (want 0.625), P(superior) %v (want 0.8125)", b.ExactP, b.PSuperior)
	}
	if _, err := stats.CompareBinary(control, treatment[:2]); err == nil {
		t.Error("unequal lengths: want an error")
	}
}

func TestBayesSuperiority(t *testing.T) {
	tests := []struct {
		name   string
		d      []float64
		lo, hi float64
	}{
		{"all better", []float64{0.1, 0.2, 0.05}, 1, 1},
		{"all worse", []float64{-0.1, -0.3}, 0, 0},
		{"all zero", []float64{0, 0, 0}, 0.5, 0.5},
		{"none", nil, 0.5, 0.5},
		// symmetric: the posterior of the mean is symmetric about 0.
		{"symmetric", []float64{-1, 1, -2, 2}, 0.45, 0.55},
		// mostly better: most weightings keep the mean above 0.
		{"mostly better", []float64{0.3, 0.2, 0.25, -0.1, 0.15, 0.1, -0.05, 0.2}, 0.95, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := stats.BayesSuperiority(tt.d, 7, 0)
			if got < tt.lo || got > tt.hi {
				t.Errorf("BayesSuperiority = %v, want in [%v, %v]", got, tt.lo, tt.hi)
			}
			if again := stats.BayesSuperiority(tt.d, 7, 0); again != got {
				t.Errorf("same seed: %v then %v", got, again)
			}
		})
	}
}
