package sampler

import (
	"errors"
	"fmt"
	"math"
	"math/rand"
	"sort"
	"sync"

	"github.com/c-bata/goptuna"
	"github.com/c-bata/goptuna/tpe"
)

// tpeCandidates is how many candidates TPE draws from the good trials'
// density before keeping the one with the best density ratio (goptuna's
// default).
const tpeCandidates = 24

// tpeSampler is the tree-structured Parzen estimator on goptuna's Parzen
// estimator, gamma and weights, drawing from its own seeded source.
//
// goptuna v0.9.0's tpe.Sampler picks mixture components with the global,
// unseeded math/rand source (internal/random.ArgMaxMultinomial), so the
// same seed does not give the same trials with it.
type tpeSampler struct {
	mu     sync.Mutex
	rng    *rand.Rand
	params tpe.ParzenEstimatorParams
}

var _ goptuna.Sampler = (*tpeSampler)(nil)

func newTPE(seed int64) *tpeSampler {
	return &tpeSampler{rng: rand.New(rand.NewSource(seed)), params: tpe.ParzenEstimatorParams{
		ConsiderPrior: true, PriorWeight: 1, ConsiderMagicClip: true, Weights: tpe.DefaultWeights,
	}}
}

// Sample implements goptuna.Sampler: the finished trials that set name are
// split into the best γ(n) and the rest, and the value maximizing the
// ratio of their densities among candidates drawn from the best's is
// returned.
func (s *tpeSampler) Sample(study *goptuna.Study, _ goptuna.FrozenTrial, name string, distribution any) (float64, error) {
	below, above, err := observations(study, name)
	if err != nil {
		return 0, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	switch d := distribution.(type) {
	case goptuna.UniformDistribution:
		return s.numerical(d.Low, d.High, below, above, 0), nil
	case goptuna.LogUniformDistribution:
		logs := func(xs []float64) []float64 {
			out := make([]float64, len(xs))
			for i, x := range xs {
				out[i] = math.Log(x)
			}
			return out
		}
		x := math.Exp(s.numerical(math.Log(d.Low), math.Log(d.High), logs(below), logs(above), 0))
		return math.Min(math.Max(x, d.Low), d.High), nil
	case goptuna.IntUniformDistribution:
		return s.grid(float64(d.Low), float64(d.High), 1, below, above), nil
	case goptuna.StepIntUniformDistribution:
		return s.grid(float64(d.Low), float64(d.High), float64(d.Step), below, above), nil
	case goptuna.DiscreteUniformDistribution:
		return s.grid(d.Low, d.High, d.Q, below, above), nil
	case goptuna.CategoricalDistribution:
		return s.categorical(len(d.Choices), below, above), nil
	}
	return 0, fmt.Errorf("tpe: sample %s: %w", name, goptuna.ErrUnknownDistribution)
}

// observations splits the finished trials' values of name into the best
// γ(n) ("below", as TPE minimizes) and the rest, each in trial order.
// Complete trials rank before pruned ones, pruned ones by how far they got.
func observations(study *goptuna.Study, name string) (below, above []float64, err error) {
	trials, err := study.GetTrials()
	if err != nil && !errors.Is(err, goptuna.ErrTrialsPartiallyDeleted) {
		return nil, nil, err
	}
	sign := 1.0
	if study.Direction() == goptuna.StudyDirectionMaximize {
		sign = -1
	}
	type obs struct {
		value   float64
		k0, k1  float64
		ordinal int
	}
	var all []obs
	for _, t := range trials {
		v, ok := t.InternalParams[name]
		if !ok || (t.State != goptuna.TrialStateComplete && t.State != goptuna.TrialStatePruned) {
			continue
		}
		o := obs{value: v, k0: math.Inf(-1), k1: sign * t.Value, ordinal: len(all)}
		if t.State == goptuna.TrialStatePruned {
			if step, ok := t.GetLatestStep(); ok {
				o.k0, o.k1 = -float64(step), sign*t.IntermediateValues[step]
			} else {
				o.k0, o.k1 = math.Inf(1), 0
			}
		}
		all = append(all, o)
	}
	ranked := append([]obs(nil), all...)
	sort.SliceStable(ranked, func(i, j int) bool {
		if ranked[i].k0 != ranked[j].k0 {
			return ranked[i].k0 < ranked[j].k0
		}
		return ranked[i].k1 < ranked[j].k1
	})
	good := map[int]bool{}
	for _, o := range ranked[:tpe.DefaultGamma(len(ranked))] {
		good[o.ordinal] = true
	}
	for _, o := range all {
		if good[o.ordinal] {
			below = append(below, o.value)
		} else {
			above = append(above, o.value)
		}
	}
	return below, above, nil
}

// grid samples a value of {low, low+q, …, high}: TPE on the range widened
// by q/2 each side, discretized to steps of q.
func (s *tpeSampler) grid(low, high, q float64, below, above []float64) float64 {
	shift := func(xs []float64) []float64 {
		out := make([]float64, len(xs))
		for i, x := range xs {
			out[i] = x - low
		}
		return out
	}
	r := high - low
	x := s.numerical(-q/2, r+q/2, shift(below), shift(above), q) + low
	return math.Min(math.Max(x, low), high)
}

// numerical draws tpeCandidates values from the good trials' truncated
// Gaussian mixture on [low, high) (rounded to multiples of q when q > 0)
// and returns the one maximizing l(x)/g(x).
func (s *tpeSampler) numerical(low, high float64, below, above []float64, q float64) float64 {
	l := tpe.NewParzenEstimator(below, low, high, s.params)
	g := tpe.NewParzenEstimator(above, low, high, s.params)
	best, bestScore := math.NaN(), math.Inf(-1)
	for n := 0; n < tpeCandidates; n++ {
		x := s.draw(l, low, high)
		if q > 0 {
			x = math.Round(x/q) * q
		}
		if score := logPDF(l, x, low, high, q) - logPDF(g, x, low, high, q); score > bestScore || math.IsNaN(best) {
			best, bestScore = x, score
		}
	}
	return best
}

// draw samples the mixture truncated to [low, high) by rejection; after
// many rejections (a vanishing component) it falls back to uniform.
func (s *tpeSampler) draw(pe *tpe.ParzenEstimator, low, high float64) float64 {
	for attempt := 0; attempt < 1000; attempt++ {
		u, c := s.rng.Float64(), len(pe.Weights)-1
		for i, w := range pe.Weights {
			if u < w {
				c = i
				break
			}
			u -= w
		}
		x := s.rng.NormFloat64()*pe.Sigmas[c] + pe.Mus[c]
		if low <= x && x < high {
			return x
		}
	}
	return low + s.rng.Float64()*(high-low)
}

// logPDF is the log density of the mixture truncated to [low, high] at x,
// or with q > 0 the log probability of the bin [x-q/2, x+q/2].
func logPDF(pe *tpe.ParzenEstimator, x, low, high, q float64) float64 {
	mass, p := 0.0, 0.0
	for i, w := range pe.Weights {
		mu, sigma := pe.Mus[i], pe.Sigmas[i]
		mass += w * (normalCDF((high-mu)/sigma) - normalCDF((low-mu)/sigma))
		if q > 0 {
			p += w * (normalCDF((math.Min(x+q/2, high)-mu)/sigma) - normalCDF((math.Max(x-q/2, low)-mu)/sigma))
		} else {
			z := (x - mu) / sigma
			p += w * math.Exp(-z*z/2) / (sigma * math.Sqrt(2*math.Pi))
		}
	}
	return math.Log(math.Max(p, 1e-300)) - math.Log(math.Max(mass, 1e-300))
}

func normalCDF(z float64) float64 { return 0.5 * math.Erfc(-z/math.Sqrt2) }

// categorical returns the choice maximizing the ratio of the good and the
// other trials' weighted choice frequencies (each with a prior of one).
func (s *tpeSampler) categorical(n int, below, above []float64) float64 {
	freq := func(xs []float64) []float64 {
		f := make([]float64, n)
		for i := range f {
			f[i] = s.params.PriorWeight
		}
		for i, w := range s.params.Weights(len(xs)) {
			if c := int(xs[i]); c >= 0 && c < n {
				f[c] += w
			}
		}
		sum := 0.0
		for _, v := range f {
			sum += v
		}
		for i := range f {
			f[i] /= sum
		}
		return f
	}
	l, g := freq(below), freq(above)
	best, bestScore := 0, math.Inf(-1)
	for c := 0; c < n; c++ {
		if score := math.Log(l[c]) - math.Log(g[c]); score > bestScore {
			best, bestScore = c, score
		}
	}
	return float64(best)
}
