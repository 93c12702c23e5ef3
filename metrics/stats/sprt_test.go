package stats

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestSPRTPath: the boundaries are Wald's, and the path is the normal
// log-likelihood ratio with the variance of the deltas seen so far,
// computed here independently (two passes); the test stops at the first
// crossing after the burn-in.
func TestSPRTPath(t *testing.T) {
	deltas := []float64{0.2, 0, 0.2, 0, 0.25, 0.05, 0.2, 0, 0.2, 0, 0.2, 0, 0.2, 0}
	opt := SPRTOptions{Alpha: 0.05, Beta: 0.2, Effect: 0.05, BurnIn: 4}
	r, err := SPRT(deltas, opt)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(r.Upper-math.Log(16)) > 1e-12 || math.Abs(r.Lower-math.Log(0.2/0.95)) > 1e-12 {
		t.Errorf("boundaries %v %v", r.Upper, r.Lower)
	}
	stop := 0
	for n := 1; n <= len(deltas); n++ {
		sum, mean := 0.0, 0.0
		for _, d := range deltas[:n] {
			sum += d
		}
		mean = sum / float64(n)
		v := 1e-12
		if n > 1 {
			ss := 0.0
			for _, d := range deltas[:n] {
				ss += (d - mean) * (d - mean)
			}
			v = math.Max(ss/float64(n-1), 1e-12)
		}
		want := (0.05*sum - float64(n)*0.0025/2) / v
		if n <= len(r.Better) && math.Abs(r.Better[n-1]-want) > 1e-9*math.Max(1, math.Abs(want)) {
			t.Errorf("path[%d] = %v, want %v", n-1, r.Better[n-1], want)
		}
		if stop == 0 && n >= 4 && want >= r.Upper {
			stop = n
		}
	}
	if stop == 0 || r.Decision != SPRTBetter || r.N != stop || len(r.Better) != stop {
		t.Errorf("decision %s at %d (path %d), want better at %d", r.Decision, r.N, len(r.Better), stop)
	}
}

// TestSPRTDecisions: identical results decide no-effect at the burn-in;
// a clear loss decides worse; too few deltas stay undecided.
func TestSPRTDecisions(t *testing.T) {
	opt := SPRTOptions{Alpha: 0.05, Beta: 0.2, Effect: 0.02}
	r, _ := SPRT(make([]float64, 50), opt)
	if r.Decision != SPRTNoEffect || r.N != DefaultSPRTBurnIn {
		t.Errorf("all zero: %s at %d", r.Decision, r.N)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	worse := make([]float64, 300)
	for i := range worse {
		worse[i] = -0.1 + 0.05*rng.NormFloat64()
	}
	if r, _ := SPRT(worse, opt); r.Decision != SPRTWorse {
		t.Errorf("clear loss: %s", r.Decision)
	}
	if r, _ := SPRT([]float64{0.1, -0.3, 0.2}, opt); r.Decision != SPRTUndecided || r.N != 3 {
		t.Errorf("three deltas: %s at %d", r.Decision, r.N)
	}
}

// TestSPRTCalibration: over 2,000 seeded simulations of 400 queries with
// deltas N(mu, 0.1): with mu = 0 a difference is declared rarely (the
// plug-in variance makes the rate approximate: at most 2.5 alpha here);
// with mu = Effect, better is decided in at least 1 - 1.5 beta of them;
// and the test stops on average well before the 400 queries.
func TestSPRTCalibration(t *testing.T) {
	opt := SPRTOptions{Alpha: 0.05, Beta: 0.2, Effect: 0.02, BurnIn: 20}
	rng := rand.New(rand.NewPCG(11, 12))
	run := func(mu float64) (decided map[string]int, meanN float64) {
		decided = map[string]int{}
		total := 0
		for s := 0; s < 2000; s++ {
			d := make([]float64, 400)
			for i := range d {
				d[i] = mu + 0.1*rng.NormFloat64()
			}
			r, err := SPRT(d, opt)
			if err != nil {
				t.Fatal(err)
			}
			decided[r.Decision]++
			total += r.N
		}
		return decided, float64(total) / 2000
	}
	null, nNull := run(0)
	if fp := float64(null[SPRTBetter]+null[SPRTWorse]) / 2000; fp > 2.5*opt.Alpha {
		t.Errorf("mu 0: difference declared in %.3f of runs (%v)", fp, null)
	}
	alt, nAlt := run(opt.Effect)
	if pw := float64(alt[SPRTBetter]) / 2000; pw < 1-1.5*opt.Beta {
		t.Errorf("mu = effect: better in %.3f of runs (%v)", pw, alt)
	}
	if nNull > 300 || nAlt > 300 {
		t.Errorf("average queries used %.0f (null), %.0f (effect) of 400", nNull, nAlt)
	}
	t.Logf("null %v (mean n %.0f); effect %v (mean n %.0f)", null, nNull, alt, nAlt)
}

func TestSPRTOptionsValidate(t *testing.T) {
	for _, tc := range []struct {
		opt  SPRTOptions
		want string
	}{
		{SPRTOptions{Alpha: 0, Beta: 0.2, Effect: 0.01}, "alpha: must be in (0, 0.5] (got 0)"},
		{SPRTOptions{Alpha: 0.05, Beta: 0.6, Effect: 0.01}, "beta: must be in (0, 0.5] (got 0.6)"},
		{SPRTOptions{Alpha: 0.05, Beta: 0.2, Effect: 0}, "effect: must be a number > 0 (got 0)"},
		{SPRTOptions{Alpha: 0.05, Beta: 0.2, Effect: math.NaN()}, "effect: must be a number > 0"},
		{SPRTOptions{Alpha: 0.05, Beta: 0.2, Effect: 0.01, BurnIn: 1}, "burn_in: must be in [2, 10000] (got 1)"},
	} {
		p := tc.opt.Validate()
		if len(p) != 1 || !strings.HasPrefix(p[0], tc.want) {
			t.Errorf("%+v: %v, want %q", tc.opt, p, tc.want)
		}
	}
}
