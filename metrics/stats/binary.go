package stats

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// Binary is the paired comparison of a success-type measure (a query
// succeeds or fails under each of two configurations, as Success@k):
// the discordant pairs, McNemar's test on them, and the Bayesian
// probability that the treatment succeeds more often.
type Binary struct {
	// Wins counts queries the treatment passes and the control fails,
	// Losses the reverse; Ties the queries both pass or both fail.
	Wins, Losses, Ties int
	// ExactP is McNemar's exact two-sided p-value: the sign test of Wins
	// against Losses (SignTest).
	ExactP float64
	// ChiSquare is McNemar's statistic with the continuity correction,
	// (|Wins − Losses| − 1)² / (Wins + Losses) (0 without discordant
	// pairs), and ChiSquareP its p-value on one degree of freedom.
	ChiSquare, ChiSquareP float64
	// PSuperior is P(θ > 1/2 | data) where θ is the share of discordant
	// queries the treatment wins, under a uniform Beta(1, 1) prior:
	// the posterior is Beta(Wins+1, Losses+1) (BetaSuperiority).
	PSuperior float64
}

// CompareBinary compares paired outcomes: control[i] and treatment[i]
// are query i's success under each configuration.
func CompareBinary(control, treatment []bool) (Binary, error) {
	if len(control) != len(treatment) {
		return Binary{}, fmt.Errorf("stats: %d control outcomes, %d treatment outcomes", len(control), len(treatment))
	}
	var b Binary
	for i := range control {
		switch {
		case treatment[i] && !control[i]:
			b.Wins++
		case control[i] && !treatment[i]:
			b.Losses++
		default:
			b.Ties++
		}
	}
	b.ExactP = SignTest(b.Wins, b.Losses)
	b.ChiSquare, b.ChiSquareP = McNemarChiSquare(b.Wins, b.Losses)
	b.PSuperior = BetaSuperiority(b.Wins, b.Losses)
	return b, nil
}

// SignTest returns the exact two-sided p-value of the sign test: the
// probability, under Binomial(wins+losses, 1/2), of a split at least as
// uneven as wins against losses (ties dropped beforehand). 1 without
// pairs.
func SignTest(wins, losses int) float64 {
	n := wins + losses
	if n == 0 {
		return 1
	}
	p := 2 * binomCDF(min(wins, losses), n)
	return min(p, 1)
}

// McNemarChiSquare returns McNemar's statistic with the continuity
// correction for b and c discordant pairs and its p-value on the
// chi-square distribution with one degree of freedom (as R's
// mcnemar.test). 0 and 1 without discordant pairs.
func McNemarChiSquare(b, c int) (stat, p float64) {
	if b+c == 0 {
		return 0, 1
	}
	d := math.Max(math.Abs(float64(b-c))-1, 0)
	stat = d * d / float64(b+c)
	return stat, math.Erfc(math.Sqrt(stat / 2))
}

// BetaSuperiority returns P(θ > 1/2) for θ ~ Beta(wins+1, losses+1): the
// posterior probability that the treatment wins more than half of the
// discordant pairs under a uniform prior. For integer parameters it is
// the binomial sum P(Binomial(wins+losses+1, 1/2) ≤ wins).
func BetaSuperiority(wins, losses int) float64 {
	return binomCDF(wins, wins+losses+1)
}

// binomCDF returns P(X ≤ k) for X ~ Binomial(n, 1/2), summed in log space.
func binomCDF(k, n int) float64 {
	if k >= n {
		return 1
	}
	if k < 0 {
		return 0
	}
	lgN, _ := math.Lgamma(float64(n + 1))
	logHalfN := float64(n) * math.Log(0.5)
	sum := 0.0
	for i := 0; i <= k; i++ {
		a, _ := math.Lgamma(float64(i + 1))
		b, _ := math.Lgamma(float64(n - i + 1))
		sum += math.Exp(lgN - a - b + logHalfN)
	}
	return min(sum, 1)
}

// DefaultBayesDraws is the number of posterior draws BayesSuperiority
// makes when draws is 0.
const DefaultBayesDraws = 4000

// BayesSuperiority returns the posterior probability that the mean of the
// paired differences d (treatment minus control) is above 0 under the
// Bayesian bootstrap (Rubin 1981): the population is a distribution on
// the observed differences with Dirichlet(1, …, 1) weights — the
// posterior under the non-informative Dirichlet(0, …, 0) prior of Rubin's
// construction — and each of draws draws weighs the differences by
// normalized exponential variates. A draw whose weighted mean is exactly
// 0 counts one half. seed makes the draws repeatable; 1/2 without
// differences.
func BayesSuperiority(d []float64, seed int64, draws int) float64 {
	if len(d) == 0 {
		return 0.5
	}
	if draws <= 0 {
		draws = DefaultBayesDraws
	}
	r := rand.New(newPCG(seed))
	above := 0.0
	for range draws {
		var sum, wsum float64
		for _, x := range d {
			w := r.ExpFloat64()
			sum += w * x
			wsum += w
		}
		switch m := sum / wsum; {
		case m > 0:
			above++
		case m == 0:
			above += 0.5
		}
	}
	return above / float64(draws)
}
