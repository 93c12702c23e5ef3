package stats

import (
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// DefaultPower is the power minimum detectable effects and query budgets
// are computed for.
const DefaultPower = 0.8

// PriorSD is the per-query standard deviation of paired differences
// assumed without a run to measure it: ΔnDCG@10 between fusion configs on
// BEIR SciFact has a 95% interval half-width of about ±0.015 at 300 queries
// and ±0.047 at 25, i.e. sd = half-width/1.96·√n ≈ 0.13 and 0.12.
const PriorSD = 0.13

func z(p float64) float64 { return distuv.UnitNormal.Quantile(p) }

// SD returns the sample standard deviation of v (divisor n-1; 0 for fewer
// than two values).
func SD(v []float64) float64 {
	if len(v) < 2 {
		return 0
	}
	m := Mean(v)
	var s float64
	for _, x := range v {
		s += (x - m) * (x - m)
	}
	return math.Sqrt(s / float64(len(v)-1))
}

// MDE returns the minimum detectable effect of a two-sided test at level a
// with the given power on n paired queries whose differences have standard
// deviation sd: (z(1-a/2) + z(power))·sd/√n, the normal approximation the
// randomization test follows for tens of queries and more.
func MDE(sd float64, n int, a, power float64) float64 {
	if n <= 0 {
		return math.Inf(1)
	}
	return (z(1-a/2) + z(power)) * sd / math.Sqrt(float64(n))
}

// QueriesNeeded returns how many judged queries a two-sided test at level a
// needs to detect effect with the given power when the per-query
// differences have standard deviation sd: ⌈((z(1-a/2) + z(power))·sd/effect)²⌉,
// but never fewer than the sign-flip test can reject with at a (the
// smallest n with 2/2^n < a) nor than DefaultMinNonZeroPairs.
func QueriesNeeded(effect, sd, a, power float64) int {
	if effect <= 0 {
		return math.MaxInt32
	}
	r := (z(1-a/2) + z(power)) * sd / effect
	n := int(math.Ceil(r * r))
	floor := DefaultMinNonZeroPairs
	for 2/math.Pow(2, float64(floor)) >= a {
		floor++
	}
	return max(n, floor)
}

// SplitBreakEven returns the smallest family size m from which testing one
// pre-planned comparison at alpha on a held-out share testFraction of the
// queries is more powerful than testing on all of them at the
// Bonferroni level alpha/m (Holm's first step): the m with
// z(1-alpha/(2m)) > z(1-alpha/2)/√testFraction. For alpha = 0.05 and a
// half split it is 9.
func SplitBreakEven(alpha, testFraction float64) int {
	need := z(1-alpha/2) / math.Sqrt(testFraction)
	for m := 1; m < 1<<20; m++ {
		if z(1-alpha/(2*float64(m))) > need {
			return m
		}
	}
	return math.MaxInt32
}
