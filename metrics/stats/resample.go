package stats

import (
	"context"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"sync"
)

// Interval is a mean with its bootstrap percentile interval.
type Interval struct {
	Mean  float64
	Low   float64
	High  float64
	Level float64
	N     int
	// Warning says why there is no interval (too few values); Low and
	// High equal Mean then.
	Warning string
}

// newPCG returns the package's seeded generator, so a seed gives the same
// stream on every platform.
func newPCG(seed int64) *rand.PCG {
	return rand.NewPCG(uint64(seed), 0x9e3779b97f4a7c15)
}

// index maps a uniform 64-bit word to [0, n) by multiply-shift (Lemire);
// the bias, at most n/2^64, is far below anything a bootstrap can see.
func index(word, n uint64) uint64 {
	hi, _ := bits.Mul64(word, n)
	return hi
}

// Mean returns the arithmetic mean of v (0 for none).
func Mean(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	var s float64
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}

// PairedBootstrap returns the mean of the paired differences d with its
// percentile bootstrap interval (widened by sqrt(n/(n-1)), see
// bootstrapMean) at th.Level, from th.Resamples resamples
// of the pairs drawn with the seed. The interval is of the mean difference,
// so a paired bootstrap is a bootstrap of d.
func PairedBootstrap(d []float64, seed int64, th Thresholds) Interval {
	iv, _ := bootstrapMean(context.Background(), d, seed, th.WithDefaults())
	return iv
}

// MeanInterval returns the mean of v with its percentile bootstrap interval
// (th.Resamples resamples, seeded). With fewer than th.MinIntervalN values
// (one per query) it returns no interval and a warning that names the
// group: "category x has 4 queries: no interval (need 5)" for
// MeanInterval(v, "category x", ...).
func MeanInterval(v []float64, name string, seed int64, th Thresholds) Interval {
	iv, _ := MeanIntervalContext(context.Background(), v, name, seed, th)
	return iv
}

// MeanIntervalContext is MeanInterval that stops with ctx's error once ctx
// is done (it checks every few resamples).
func MeanIntervalContext(ctx context.Context, v []float64, name string, seed int64, th Thresholds) (Interval, error) {
	th = th.WithDefaults()
	if len(v) < th.MinIntervalN {
		m := Mean(v)
		unit := "queries"
		if len(v) == 1 {
			unit = "query"
		}
		return Interval{Mean: m, Low: m, High: m, Level: th.Level, N: len(v),
			Warning: fmt.Sprintf("%s has %d %s: no interval (need %d)", name, len(v), unit, th.MinIntervalN)}, nil
	}
	return bootstrapMean(ctx, v, seed, th)
}

// checkEvery is how many resamples or flips run between two looks at the
// context: few enough to stop well within a second on any realistic n.
const checkEvery = 256

func bootstrapMean(ctx context.Context, v []float64, seed int64, th Thresholds) (Interval, error) {
	n := len(v)
	out := Interval{Mean: Mean(v), Level: th.Level, N: n}
	if n == 0 {
		return out, nil
	}
	means := make([]float64, th.Resamples)
	if idx := resampleIndexes(seed, n, th.Resamples); idx != nil {
		for b := range means {
			if b%checkEvery == 0 && ctx.Err() != nil {
				return Interval{}, fmt.Errorf("stats: bootstrap: %w", ctx.Err())
			}
			var s float64
			for _, j := range idx[b*n : (b+1)*n] {
				s += v[j]
			}
			means[b] = s / float64(n)
		}
	} else {
		rng := newPCG(seed)
		un := uint64(n)
		for b := range means {
			if b%checkEvery == 0 && ctx.Err() != nil {
				return Interval{}, fmt.Errorf("stats: bootstrap: %w", ctx.Err())
			}
			var s float64
			for i := 0; i < n; i++ {
				s += v[index(rng.Uint64(), un)]
			}
			means[b] = s / float64(n)
		}
	}
	sortFloats(means)
	a := (1 - th.Level) / 2
	// The plain percentile interval is too narrow in small samples: the
	// resampled means have the variance s²/n with the biased s² (divisor
	// n). Widening around the mean by sqrt(n/(n-1)) gives them the
	// unbiased variance (Hesterberg's expanded percentile, first step).
	widen := 1.0
	if n > 1 {
		widen = math.Sqrt(float64(n) / float64(n-1))
	}
	out.Low = out.Mean + widen*(quantile(means, a)-out.Mean)
	out.High = out.Mean + widen*(quantile(means, 1-a)-out.Mean)
	return out, nil
}

// Resampling indexes are kept for reuse: every trial compared with one
// reference on one metric resamples with the same seed (common random
// numbers), so the same indexes are drawn for each. At most
// keptResamplings sets are kept, each of at most maxKeptIndexes.
const (
	keptResamplings = 4
	maxKeptIndexes  = 1 << 22 // 16 MB of uint32
)

type resamplingKey struct {
	seed      int64
	n, copies int
}

type resampling struct {
	once sync.Once
	idx  []uint32
}

var resamplings struct {
	mu    sync.Mutex
	byKey map[resamplingKey]*resampling
	order []resamplingKey // oldest first
}

// resampleIndexes returns the indexes bootstrapMean draws for copies
// resamples of n values with seed — resample b is idx[b*n:(b+1)*n], drawn
// from newPCG(seed) in that order, as drawing them one by one would — or
// nil when there are too many to keep (n*copies > maxKeptIndexes, or n
// beyond uint32).
func resampleIndexes(seed int64, n, copies int) []uint32 {
	if n <= 0 || copies <= 0 || n > math.MaxUint32 || n > maxKeptIndexes/copies {
		return nil
	}
	key := resamplingKey{seed, n, copies}
	resamplings.mu.Lock()
	r := resamplings.byKey[key]
	if r == nil {
		if resamplings.byKey == nil {
			resamplings.byKey = map[resamplingKey]*resampling{}
		}
		if len(resamplings.order) == keptResamplings {
			delete(resamplings.byKey, resamplings.order[0])
			resamplings.order = resamplings.order[1:]
		}
		r = &resampling{}
		resamplings.byKey[key] = r
		resamplings.order = append(resamplings.order, key)
	}
	resamplings.mu.Unlock()
	r.once.Do(func() {
		rng := newPCG(seed)
		un := uint64(n)
		r.idx = make([]uint32, n*copies)
		for i := range r.idx {
			r.idx[i] = uint32(index(rng.Uint64(), un))
		}
	})
	return r.idx
}

// quantile is the type-7 (R default) quantile of sorted values.
func quantile(sorted []float64, p float64) float64 {
	h := float64(len(sorted)-1) * p
	lo := math.Floor(h)
	i := int(lo)
	if i+1 >= len(sorted) {
		return sorted[len(sorted)-1]
	}
	return sorted[i] + (h-lo)*(sorted[i+1]-sorted[i])
}

// Randomization is the result of a paired randomization test.
type Randomization struct {
	// P is the two-sided p-value of the mean difference.
	P float64
	// Exact is true when all 2^n sign flips were enumerated; otherwise
	// Permutations random flips were drawn with Seed, and
	// P = (hits + 1) / (Permutations + 1).
	Exact        bool
	Permutations int
	Seed         int64
}

// PairedRandomization tests whether the paired differences d have mean
// zero by flipping their signs (under the null hypothesis each pair is
// exchangeable): the p-value is the share of flips whose |sum| is at least
// the observed |sum|. With at most th.ExactRandomizationMaxN pairs it
// enumerates every flip; otherwise it draws th.Permutations flips seeded
// with seed. It is SignFlips(d, seed, th).P(0).
func PairedRandomization(d []float64, seed int64, th Thresholds) Randomization {
	f := SignFlips(d, seed, th)
	return Randomization{P: f.P(0), Exact: f.Exact, Permutations: f.Permutations, Seed: seed}
}
