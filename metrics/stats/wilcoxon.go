package stats

import (
	"fmt"
	"math"
	"sort"

	"gonum.org/v1/gonum/stat/distuv"
)

// Wilcoxon is the result of the Wilcoxon signed-rank test on paired
// differences d = x - y.
type Wilcoxon struct {
	// N is the number of non-zero differences (the test's sample size);
	// Zeros the number of zero differences dropped.
	N     int
	Zeros int
	// W is the sum of the ranks of the positive differences (R's V).
	W float64
	// P is the two-sided p-value; PGreater the one-sided p-value for the
	// alternative "x is greater" (median difference > 0) and PLess for
	// "x is less". All are NaN when Warning is set.
	P        float64
	PGreater float64
	PLess    float64
	// Exact is true when the p-values come from the exact null
	// distribution, false for the normal approximation (then Z is the
	// standardized statistic of the two-sided test).
	Exact bool
	Z     float64
	// Ties is true when some absolute differences were tied (mid-ranks were
	// used and the variance corrected).
	Ties bool
	// Warning is set when there were too few non-zero pairs for a p-value.
	Warning string
}

// SignedRank runs the Wilcoxon signed-rank test on the paired differences
// d. Zero differences are dropped (Wilcoxon's method). With fewer than
// th.MinNonZeroPairs non-zero differences it returns a warning and NaN
// p-values. Below th.ExactMaxN pairs without ties the p-values are exact;
// otherwise the normal approximation is used, with mid-ranks for ties, the
// tie correction of the variance and (th.ContinuityCorrection) a continuity
// correction, as R's wilcox.test does.
func SignedRank(d []float64, th Thresholds) Wilcoxon {
	th = th.WithDefaults()
	abs := make([]float64, 0, len(d))
	pos := make([]bool, 0, len(d))
	r := Wilcoxon{P: math.NaN(), PGreater: math.NaN(), PLess: math.NaN()}
	for _, v := range d {
		if v == 0 || math.IsNaN(v) {
			r.Zeros++
			continue
		}
		abs = append(abs, math.Abs(v))
		pos = append(pos, v > 0)
	}
	n := len(abs)
	r.N = n
	ranks, tieSum := midRanks(abs)
	r.Ties = tieSum > 0
	for i, rk := range ranks {
		if pos[i] {
			r.W += rk
		}
	}
	if n < th.MinNonZeroPairs {
		r.Warning = fmt.Sprintf("too few non-zero pairs: %d (need %d)", n, th.MinNonZeroPairs)
		return r
	}
	if n < th.ExactMaxN && !r.Ties {
		r.exactP(n)
	} else {
		r.normalP(n, tieSum, th.ContinuityCorrection)
	}
	return r
}

// exactP sets r's p-values from the exact distribution of W over n
// non-zero differences without ties.
func (r *Wilcoxon) exactP(n int) {
	r.Exact = true
	w := int(math.Round(r.W))
	counts := signedRankCounts(n)
	total := math.Ldexp(1, n)
	var le, ge float64
	for s, c := range counts {
		if s <= w {
			le += c
		}
		if s >= w {
			ge += c
		}
	}
	r.PLess, r.PGreater = le/total, ge/total
	r.P = math.Min(1, 2*math.Min(r.PLess, r.PGreater))
}

// normalP sets r's z and p-values from the normal approximation of W over
// n non-zero differences, the variance corrected for ties (tieSum: the sum
// of t³ - t over groups of t tied ranks), with a continuity correction of
// 0.5 when continuity is true.
func (r *Wilcoxon) normalP(n int, tieSum float64, continuity bool) {
	nf := float64(n)
	mean := nf * (nf + 1) / 4
	sd := math.Sqrt(nf*(nf+1)*(2*nf+1)/24 - tieSum/48)
	z := r.W - mean
	norm := distuv.UnitNormal
	cc := func(c float64) float64 {
		if continuity {
			return c
		}
		return 0
	}
	two := (z - cc(0.5*sign(z))) / sd
	r.Z = two
	r.P = math.Min(1, 2*math.Min(norm.CDF(two), norm.Survival(two)))
	r.PGreater = norm.Survival((z - cc(0.5)) / sd)
	r.PLess = norm.CDF((z + cc(0.5)) / sd)
}

func sign(v float64) float64 {
	switch {
	case v > 0:
		return 1
	case v < 0:
		return -1
	}
	return 0
}

// midRanks ranks v ascending (1-based), giving tied values the mean of
// their ranks, and returns Σ(t³ - t) over the groups of t ties.
func midRanks(v []float64) ([]float64, float64) {
	idx := make([]int, len(v))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return v[idx[a]] < v[idx[b]] })
	ranks := make([]float64, len(v))
	var tieSum float64
	for i := 0; i < len(idx); {
		j := i + 1
		for j < len(idx) && v[idx[j]] == v[idx[i]] {
			j++
		}
		mid := float64(i+j+1) / 2 // mean of ranks i+1..j
		for k := i; k < j; k++ {
			ranks[idx[k]] = mid
		}
		if t := float64(j - i); t > 1 {
			tieSum += t*t*t - t
		}
		i = j
	}
	return ranks, tieSum
}

// signedRankCounts returns, for each s in 0..n(n+1)/2, the number of the
// 2^n sign assignments of ranks 1..n whose positive ranks sum to s.
func signedRankCounts(n int) []float64 {
	maxSum := n * (n + 1) / 2
	c := make([]float64, maxSum+1)
	c[0] = 1
	top := 0
	for k := 1; k <= n; k++ {
		top += k
		for s := top; s >= k; s-- {
			c[s] += c[s-k]
		}
	}
	return c
}
