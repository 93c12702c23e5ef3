package stats

import (
	"context"
	"fmt"
	"math"
)

// Flips is the sign-flip (paired randomization) distribution of paired
// differences d, kept in a form that answers the test for any hypothesised
// mean difference δ, not only 0: for each sign vector s it stores the
// range [lo, hi] of δ for which |Σ sᵢ(dᵢ-δ)| ≥ |Σ (dᵢ-δ)| (the flip
// "reaches" the observed statistic). That range always contains the mean
// of d, since
//
//	(A - Bδ)² - (S - nδ)² = ((A-S) + (n-B)δ)·((A+S) - (n+B)δ)
//
// with S = Σ dᵢ, A = Σ sᵢdᵢ, B = Σ sᵢ is a product of an increasing and a
// decreasing linear term, non-negative exactly between their roots
// (S-A)/(n-B) and (S+A)/(n+B). So the p-value P(δ) falls monotonically on
// either side of the mean, the set {δ : P(δ) ≥ a} is an interval, and
// "0 is outside the interval at level 1-a" holds exactly when P(0) < a:
// the interval and the test are one rule.
type Flips struct {
	// Mean is the mean of d.
	Mean float64
	// N is the number of pairs.
	N int
	// Exact is true when all 2^N sign vectors were enumerated; otherwise
	// Permutations random vectors were drawn with Seed and the identity is
	// counted once more, P = (hits + 1) / (Permutations + 1).
	Exact        bool
	Permutations int
	Seed         int64
	lo, hi       []float64 // one per sign vector, in the order drawn (never sorted: read concurrently)
	minD, maxD   float64
}

// SignFlips draws (or, with at most th.ExactRandomizationMaxN pairs,
// enumerates) the sign vectors of the randomization test of the paired
// differences d, seeded with seed. The same d, seed and thresholds give the
// same Flips.
func SignFlips(d []float64, seed int64, th Thresholds) Flips {
	f, _ := SignFlipsContext(context.Background(), d, seed, th)
	return f
}

// maxReservedFlips is how many sign vectors SignFlipsContext reserves
// room for before it starts.
const maxReservedFlips = 1 << 17

// SignFlipsContext is SignFlips that stops with ctx's error once ctx is
// done: it looks at ctx every few hundred sign vectors.
func SignFlipsContext(ctx context.Context, d []float64, seed int64, th Thresholds) (Flips, error) {
	th = th.WithDefaults()
	n := len(d)
	f := Flips{Mean: Mean(d), N: n, Seed: seed}
	var s, maxAbs float64
	for i, v := range d {
		s += v
		maxAbs = math.Max(maxAbs, math.Abs(v))
		if i == 0 || v < f.minD {
			f.minD = v
		}
		if i == 0 || v > f.maxD {
			f.maxD = v
		}
	}
	if n == 0 {
		f.Exact, f.Permutations = true, 1
		f.lo, f.hi = []float64{math.Inf(-1)}, []float64{math.Inf(1)}
		return f, nil
	}
	// A flip that reaches the observed sum only up to rounding still
	// counts: widen every range by a hair.
	fr := flipRanges{f: &f, s: s, eps: 1e-9 * maxAbs, n: n}
	var err error
	if n <= th.ExactRandomizationMaxN {
		err = fr.exact(ctx, d)
	} else {
		err = fr.sampled(ctx, d, seed, th.Permutations)
	}
	if err != nil {
		return Flips{}, err
	}
	return f, nil
}

// flipRanges collects into f, for each sign vector, the range of shifts δ
// over which the flipped sum's magnitude reaches the observed one (s, the
// sum of the n differences), each range widened by eps.
type flipRanges struct {
	f      *Flips
	s, eps float64
	n      int
}

// add records the range of the sign vector whose flipped sum is a, with
// flipped of the differences flipped; all kept or all flipped reaches
// every δ.
func (r *flipRanges) add(a float64, flipped int) {
	b := float64(r.n - 2*flipped)
	nf := float64(r.n)
	if nf-b == 0 || nf+b == 0 {
		r.f.lo, r.f.hi = append(r.f.lo, math.Inf(-1)), append(r.f.hi, math.Inf(1))
		return
	}
	r1, r2 := (r.s-a)/(nf-b), (r.s+a)/(nf+b)
	r.f.lo, r.f.hi = append(r.f.lo, math.Min(r1, r2)-r.eps), append(r.f.hi, math.Max(r1, r2)+r.eps)
}

// exact records every one of the 2^len(d) sign vectors.
func (r *flipRanges) exact(ctx context.Context, d []float64) error {
	total := 1 << len(d)
	r.f.Exact, r.f.Permutations = true, total
	r.f.lo, r.f.hi = make([]float64, 0, total), make([]float64, 0, total)
	for mask := 0; mask < total; mask++ {
		if mask%checkEvery == 0 && ctx.Err() != nil {
			return fmt.Errorf("stats: randomization: %w", ctx.Err())
		}
		a, flipped := 0.0, 0
		for i, v := range d {
			if mask&(1<<i) != 0 {
				a -= v
				flipped++
			} else {
				a += v
			}
		}
		r.add(a, flipped)
	}
	return nil
}

// sampled records permutations random sign vectors drawn from seed.
func (r *flipRanges) sampled(ctx context.Context, d []float64, seed int64, permutations int) error {
	rng := newPCG(seed)
	r.f.Permutations = permutations
	// Grown as the flips run, not reserved up front: a count too large to
	// finish is stopped by ctx before it exhausts memory.
	capacity := min(permutations, maxReservedFlips)
	r.f.lo, r.f.hi = make([]float64, 0, capacity), make([]float64, 0, capacity)
	// Branch-free: sum the flipped differences (bit 1 of the word flips
	// one), then A = S - 2·Σ flipped.
	return randomFlips(ctx, d, rng, permutations, func(fs float64, flipped int) {
		r.add(r.s-2*fs, flipped)
	})
}

// hits counts the sign vectors that reach the statistic at δ: one pass
// over the ranges, where sorting them for a binary search would cost more
// than the few δ a comparison asks about (P(0), then its interval's ends
// through orderStat).
func (f Flips) hits(delta float64) int {
	// Every range has lo ≤ hi, so those with hi < δ also have lo ≤ δ. A
	// NaN end counts as a sorted slice's binary search would count it
	// (sortFloats puts NaN first): as ≤ δ and < δ.
	n := 0
	for i, lo := range f.lo {
		if !(lo > delta) {
			n++
		}
		if !(f.hi[i] >= delta) {
			n--
		}
	}
	return n
}

func (f Flips) pOf(hits int) float64 {
	if f.Exact {
		return float64(hits) / float64(len(f.lo))
	}
	return float64(hits+1) / float64(len(f.lo)+1)
}

// bound replaces an unbounded end of an interval (the sign vectors that
// reach every δ are enough for level a) by the data's extreme difference,
// widened to reach 0: a finite number that keeps 0 on the side it was.
func (f Flips) bound(lo, hi float64) (float64, float64) {
	if math.IsInf(lo, -1) {
		lo = math.Min(f.minD, 0)
	}
	if math.IsInf(hi, 1) {
		hi = math.Max(f.maxD, 0)
	}
	return lo, hi
}

// P returns the two-sided p-value of the hypothesis "the mean difference
// is delta".
func (f Flips) P(delta float64) float64 { return f.pOf(f.hits(delta)) }

// Interval returns the set of mean differences δ the test does not reject
// at level a, {δ : P(δ) ≥ a}: the confidence interval at level 1-a that
// inverts the test. It contains Mean, and it excludes 0 exactly when
// P(0) < a. An end the test cannot bound at that level (too few pairs for
// so small an a) is reported as the most extreme difference in d, or 0
// when that is nearer to the mean, which keeps the equivalence.
func (f Flips) Interval(a float64) (low, high float64) {
	total := len(f.lo)
	// need is the fewest hits with pOf(hits) ≥ a, found with the same
	// arithmetic P uses, so the two can never disagree.
	need := 0
	for need <= total && f.pOf(need) < a {
		need++
	}
	if need == 0 {
		return f.bound(math.Inf(-1), math.Inf(1))
	}
	if need > total {
		need = total // a above every p: only the mean itself is accepted
	}
	// Left of the mean every range reaching δ is one whose lo ≤ δ; right of
	// it one whose hi ≥ δ.
	return f.bound(orderStat(f.lo, need-1), orderStat(f.hi, total-need))
}

// Decision is the one decision rule of fusiontune applied to one
// comparison of a family: the paired randomization test of the mean
// difference, its p-value corrected over the family, and the interval that
// inverts the test at the level the correction leaves for this comparison.
type Decision struct {
	// Mean is the mean paired difference.
	Mean float64
	// P is the randomization test's two-sided p-value; PAdjusted the
	// p-value corrected over the family (equal to P for a family of one).
	P, PAdjusted float64
	// Level is the confidence level of [Low, High]: 1 - α·P/PAdjusted, the
	// level at which the corrected test rejects exactly when the interval
	// excludes 0 (1 - α for a family of one).
	Level     float64
	Low, High float64
	// Significant is true when [Low, High] excludes 0 (equivalently,
	// PAdjusted < α); the sign of Mean gives the direction.
	Significant bool
}

// Decide applies the decision rule to a family of comparisons, each given
// by its sign flips, corrected by method (Holm, BH or None) at alpha.
func Decide(family []Flips, method string, alpha float64) ([]Decision, error) {
	ps := make([]float64, len(family))
	for i, f := range family {
		ps[i] = f.P(0)
	}
	adj, err := Adjust(ps, method)
	if err != nil {
		return nil, err
	}
	out := make([]Decision, len(family))
	for i, f := range family {
		a := alpha
		if adj[i] > 0 && ps[i] > 0 {
			a = alpha * ps[i] / adj[i]
		}
		lo, hi := f.Interval(a)
		out[i] = Decision{Mean: f.Mean, P: ps[i], PAdjusted: adj[i], Level: 1 - a, Low: lo, High: hi,
			Significant: lo > 0 || hi < 0}
	}
	return out, nil
}

// Rule states the decision rule for a family of m comparisons corrected
// by method at alpha, in the words every output uses, e.g. "paired
// randomization test of the mean, holm over 26 trials, α = 0.05; interval
// at the adjusted level".
func Rule(method string, m int, alpha float64) string {
	if m <= 1 || method == None {
		fam := "one comparison, no correction"
		if m > 1 {
			fam = fmt.Sprintf("no correction over %d trials", m)
		}
		return fmt.Sprintf("paired randomization test of the mean, %s, α = %g; interval inverts the test at 1-α", fam, alpha)
	}
	return fmt.Sprintf("paired randomization test of the mean, %s over %d trials, α = %g; interval inverts the test at the adjusted level", method, m, alpha)
}
