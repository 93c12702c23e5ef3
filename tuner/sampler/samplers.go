package sampler

import (
	"errors"
	"fmt"
	"math"
	"math/rand"
	"sync"

	"github.com/c-bata/goptuna"
	"github.com/c-bata/goptuna/cmaes"
)

// Sampler names accepted in Options.Sampler (the experiment file's
// sampler key).
const (
	Random = "random"
	TPE    = "tpe"
	CMAES  = "cmaes"
	// Default is used when an experiment file has a space but names
	// no sampler.
	Default = TPE
)

// DefaultStartupTrials is the number of observed trials before TPE and
// CMA-ES stop sampling at random, for a budget of trials: a quarter of the
// budget, at least 2 and at most 10 (goptuna's own default).
func DefaultStartupTrials(budget int) int {
	return min(max(budget/4, 2), 10)
}

// newSamplers builds the goptuna samplers for name, all seeded with seed.
// The independent sampler handles what a relative sampler (CMA-ES) does
// not: categorical parameters and the first startup trials.
//
// goptuna v0.9.0's RandomSampler draws categorical choices from the global
// math/rand source (unseeded) and never draws an int range's upper bound,
// and its TPE picks mixture components from that global source too;
// fusiontune therefore uses its own seeded uniform sampler (random search,
// the startup phase of TPE and CMA-ES, CMA-ES's categorical parameters) and
// a seeded TPE on goptuna's Parzen estimator (tpe.go). CMA-ES is goptuna's.
func newSamplers(name string, seed int64, startup int) (goptuna.Sampler, goptuna.RelativeSampler, error) {
	random := &uniformSampler{rng: rand.New(rand.NewSource(seed))}
	switch name {
	case Random:
		return random, nil, nil
	case TPE, "":
		return &warmStart{random: random, next: newTPE(seed), startup: startup}, nil, nil
	case CMAES:
		c := cmaes.NewSampler(cmaes.SamplerOptionSeed(seed), cmaes.SamplerOptionNStartupTrials(startup))
		return random, c, nil
	}
	return nil, nil, fmt.Errorf("sampler: unknown sampler %q (want random, tpe or cmaes)", name)
}

// uniformSampler draws every parameter uniformly (log-uniformly for
// LogUniform) from its own seeded source; int ranges include both bounds.
type uniformSampler struct {
	mu  sync.Mutex
	rng *rand.Rand
}

var _ goptuna.Sampler = (*uniformSampler)(nil)

// Sample implements goptuna.Sampler.
func (s *uniformSampler) Sample(_ *goptuna.Study, _ goptuna.FrozenTrial, name string, distribution any) (float64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch d := distribution.(type) {
	case goptuna.UniformDistribution:
		return d.Low + s.rng.Float64()*(d.High-d.Low), nil
	case goptuna.LogUniformDistribution:
		lo, hi := math.Log(d.Low), math.Log(d.High)
		return math.Min(math.Max(math.Exp(lo+s.rng.Float64()*(hi-lo)), d.Low), d.High), nil
	case goptuna.IntUniformDistribution:
		return float64(d.Low + s.rng.Intn(d.High-d.Low+1)), nil
	case goptuna.StepIntUniformDistribution:
		return float64(d.Low + s.rng.Intn((d.High-d.Low)/d.Step+1)*d.Step), nil
	case goptuna.DiscreteUniformDistribution:
		n := int(math.Floor((d.High-d.Low)/d.Q+1e-9)) + 1
		return math.Min(d.Low+float64(s.rng.Intn(n))*d.Q, d.High), nil
	case goptuna.CategoricalDistribution:
		return float64(s.rng.Intn(len(d.Choices))), nil
	}
	return 0, fmt.Errorf("sample %s: %w", name, goptuna.ErrUnknownDistribution)
}

// warmStart samples with random until startup trials have observed the
// parameter, then with next (TPE).
type warmStart struct {
	random  goptuna.Sampler
	next    goptuna.Sampler
	startup int
}

// Sample implements goptuna.Sampler.
func (w *warmStart) Sample(study *goptuna.Study, trial goptuna.FrozenTrial, name string, distribution any) (float64, error) {
	trials, err := study.GetTrials()
	if err != nil && !errors.Is(err, goptuna.ErrTrialsPartiallyDeleted) {
		return 0, err
	}
	observed := 0
	for _, t := range trials {
		if t.State != goptuna.TrialStateComplete && t.State != goptuna.TrialStatePruned {
			continue
		}
		if _, ok := t.InternalParams[name]; ok {
			observed++
		}
	}
	if observed < w.startup {
		return w.random.Sample(study, trial, name, distribution)
	}
	return w.next.Sample(study, trial, name, distribution)
}
