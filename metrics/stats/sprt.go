package stats

import (
	"fmt"
	"math"
)

// Ranges of the sequential test's settings.
const (
	// MaxSPRTErrorRate bounds alpha and beta, each in (0, MaxSPRTErrorRate].
	MaxSPRTErrorRate = 0.5
	// MinSPRTBurnIn and MaxSPRTBurnIn bound SPRTOptions.BurnIn.
	MinSPRTBurnIn, MaxSPRTBurnIn = 2, 10000
	// DefaultSPRTBurnIn is the burn-in when none is given.
	DefaultSPRTBurnIn = 10
)

// SPRT decisions.
const (
	SPRTBetter    = "better"    // treatment better by the effect: H1+ accepted
	SPRTWorse     = "worse"     // treatment worse by the effect: H1- accepted
	SPRTNoEffect  = "no-effect" // both one-sided tests accepted H0: no difference as large as the effect
	SPRTUndecided = "undecided" // the data ran out between the boundaries
	sprtVarFloor  = 1e-12       // the variance estimate's floor (all deltas equal)
)

// SPRTOptions configures SPRT.
type SPRTOptions struct {
	// Alpha is the false-positive rate (declaring a difference that is
	// not there), Beta the false-negative rate (missing a difference of
	// Effect), each in (0, 0.5].
	Alpha, Beta float64
	// Effect is the smallest difference of the mean delta worth detecting,
	// > 0, in the metric's units (0.01 NDCG@10).
	Effect float64
	// BurnIn is how many deltas are seen before a decision may be taken
	// (the variance is estimated from them), [2, 10000]; 0 means 10.
	BurnIn int
}

// Validate returns the options' problems as "field: what was expected".
func (o SPRTOptions) Validate() []string {
	var out []string
	for _, f := range []struct {
		name string
		v    float64
	}{{"alpha", o.Alpha}, {"beta", o.Beta}} {
		if !(f.v > 0 && f.v <= MaxSPRTErrorRate) {
			out = append(out, fmt.Sprintf("%s: must be in (0, %g] (got %v)", f.name, MaxSPRTErrorRate, f.v))
		}
	}
	if !(o.Effect > 0) || math.IsInf(o.Effect, 0) {
		out = append(out, fmt.Sprintf("effect: must be a number > 0 (got %v)", o.Effect))
	}
	if o.BurnIn != 0 && (o.BurnIn < MinSPRTBurnIn || o.BurnIn > MaxSPRTBurnIn) {
		out = append(out, fmt.Sprintf("burn_in: must be in [%d, %d] (got %d)", MinSPRTBurnIn, MaxSPRTBurnIn, o.BurnIn))
	}
	return out
}

// SPRTResult is the outcome of a sequential test.
type SPRTResult struct {
	// Upper and Lower are Wald's boundaries ln((1-beta)/alpha) and
	// ln(beta/(1-alpha)).
	Upper, Lower float64
	// Better and Worse are the log-likelihood ratio paths of the two
	// one-sided tests (mean +Effect against 0, mean -Effect against 0),
	// one value per delta seen, up to the stop.
	Better, Worse []float64
	// N is the number of deltas used: where the test stopped, or all of
	// them when undecided.
	N        int
	Decision string // SPRTBetter, SPRTWorse, SPRTNoEffect or SPRTUndecided
}

// SPRT runs Wald's sequential probability ratio test over paired deltas
// (treatment minus control, one per query, in the order they arrive) as
// two one-sided tests: H0 mean 0 against H1 mean +Effect, and against
// mean -Effect. Deltas are taken as normal with the variance estimated
// from those seen so far (floored at 1e-12), so the log-likelihood ratio
// after n deltas with sum S is (delta*S - n*delta^2/2) / var_n for
// delta = ±Effect. From BurnIn deltas on, a test stops when its ratio
// crosses Upper (H1) or Lower (H0): the first H1 decides better or worse;
// when both tests have accepted H0 the decision is no-effect. With the
// variance estimated the error rates are approximate, not Wald's exact
// bounds; the report shows a fixed-sample test beside it.
func SPRT(deltas []float64, opt SPRTOptions) (SPRTResult, error) {
	if p := opt.Validate(); len(p) > 0 {
		return SPRTResult{}, fmt.Errorf("sequential test: %s", p[0])
	}
	if opt.BurnIn == 0 {
		opt.BurnIn = DefaultSPRTBurnIn
	}
	r := SPRTResult{
		Upper:    math.Log((1 - opt.Beta) / opt.Alpha),
		Lower:    math.Log(opt.Beta / (1 - opt.Alpha)),
		Decision: SPRTUndecided,
	}
	var sum, mean, m2 float64 // Welford
	betterH0, worseH0 := false, false
	for i, d := range deltas {
		n := float64(i + 1)
		sum += d
		dm := d - mean
		mean += dm / n
		m2 += dm * (d - mean)
		v := sprtVarFloor
		if i > 0 {
			v = math.Max(m2/(n-1), sprtVarFloor)
		}
		llr := func(delta float64) float64 { return (delta*sum - n*delta*delta/2) / v }
		r.Better = append(r.Better, llr(opt.Effect))
		r.Worse = append(r.Worse, llr(-opt.Effect))
		r.N = i + 1
		if i+1 < opt.BurnIn {
			continue
		}
		b, w := r.Better[i], r.Worse[i]
		// A side that has accepted its H0 has stopped: it decides nothing
		// more.
		switch {
		case !betterH0 && b >= r.Upper:
			r.Decision = SPRTBetter
			return r, nil
		case !worseH0 && w >= r.Upper:
			r.Decision = SPRTWorse
			return r, nil
		}
		betterH0 = betterH0 || b <= r.Lower
		worseH0 = worseH0 || w <= r.Lower
		if betterH0 && worseH0 {
			r.Decision = SPRTNoEffect
			return r, nil
		}
	}
	return r, nil
}
