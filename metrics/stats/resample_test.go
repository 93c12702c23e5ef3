package stats_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/fusiontune/fusiontune/metrics/stats"
)

// TestRandomizationFisherDarwin: Fisher, The Design of Experiments (1935),
// §21, enumerates the 2^15 = 32,768 sign flips of Darwin's differences and
// finds 1,726 whose absolute sum reaches the observed 314: p = 0.05267.
func TestRandomizationFisherDarwin(t *testing.T) {
	r := stats.PairedRandomization(darwin, 1, stats.DefaultThresholds())
	if !r.Exact || r.Permutations != 32768 {
		t.Fatalf("not enumerated: %+v", r)
	}
	near(t, "exact p", r.P, 1726.0/32768, 1e-15)
	// The Monte Carlo path (enumeration off) lands near it.
	th := stats.DefaultThresholds()
	th.ExactRandomizationMaxN = -1
	th.Permutations = 100000
	mc := stats.PairedRandomization(darwin, 7, th)
	if mc.Exact {
		t.Fatal("enumerated although disabled")
	}
	near(t, "Monte Carlo p", mc.P, 1726.0/32768, 0.004) // 5 standard errors
}

func TestRandomizationReproducibleBySeed(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	d := make([]float64, 80)
	for i := range d {
		d[i] = rng.NormFloat64()*0.2 + 0.03
	}
	th := stats.DefaultThresholds()
	a := stats.PairedRandomization(d, 42, th)
	b := stats.PairedRandomization(d, 42, th)
	if a != b {
		t.Errorf("same seed, different results: %+v %+v", a, b)
	}
	c := stats.PairedRandomization(d, 43, th)
	if c.P == a.P {
		t.Errorf("seeds 42 and 43 gave the same p %v: the seed is not used", a.P)
	}
	if a.Seed != 42 || a.Permutations != th.Permutations {
		t.Errorf("seed/permutations not recorded: %+v", a)
	}
	if math.Abs(a.P-c.P) > 0.02 {
		t.Errorf("p varies too much between seeds: %v %v", a.P, c.P)
	}
}

// TestBootstrapCoverage simulates 1,000 datasets of 30 paired differences
// with a known mean difference (0.05, sd 0.2) and counts how often the 95%
// paired bootstrap interval contains it: the share must be within 93–97%.
func TestBootstrapCoverage(t *testing.T) {
	const (
		datasets = 1000
		n        = 30
		mu       = 0.05
	)
	rng := rand.New(rand.NewPCG(2026, 11))
	th := stats.DefaultThresholds()
	th.Resamples = 1000
	covered := 0
	d := make([]float64, n)
	for k := 0; k < datasets; k++ {
		for i := range d {
			d[i] = mu + 0.2*rng.NormFloat64()
		}
		iv := stats.PairedBootstrap(d, int64(k), th)
		if iv.Low <= mu && mu <= iv.High {
			covered++
		}
	}
	share := float64(covered) / datasets
	t.Logf("coverage %.3f over %d datasets", share, datasets)
	if share < 0.93 || share > 0.97 {
		t.Errorf("coverage %.3f outside 0.93–0.97", share)
	}
}

func TestBootstrapReproducible(t *testing.T) {
	d := []float64{0.1, -0.05, 0.2, 0.0, 0.3, 0.15, -0.1, 0.05}
	a := stats.PairedBootstrap(d, 9, stats.Thresholds{})
	b := stats.PairedBootstrap(d, 9, stats.Thresholds{})
	if a != b {
		t.Errorf("same seed, different intervals: %+v %+v", a, b)
	}
	near(t, "mean", a.Mean, 0.08125, 1e-15)
	if !(a.Low < a.Mean && a.Mean < a.High) || a.Level != 0.95 {
		t.Errorf("interval %+v does not bracket the mean", a)
	}
}

func TestMeanIntervalWarning(t *testing.T) {
	iv := stats.MeanInterval([]float64{0.5, 0.7, 0.6, 0.2}, "category x", 1, stats.DefaultThresholds())
	if iv.Warning != "category x has 4 queries: no interval (need 5)" {
		t.Errorf("warning %q", iv.Warning)
	}
	if iv.Low != iv.Mean || iv.High != iv.Mean || iv.N != 4 {
		t.Errorf("no-interval result %+v", iv)
	}
	iv = stats.MeanInterval([]float64{0.5, 0.7, 0.6, 0.2, 0.9}, "category x", 1, stats.DefaultThresholds())
	if iv.Warning != "" || !(iv.Low < iv.Mean && iv.Mean < iv.High) {
		t.Errorf("interval %+v", iv)
	}
}

func TestCompareLengths(t *testing.T) {
	if _, err := stats.Compare([]float64{1}, []float64{1, 2}, 1, stats.DefaultThresholds()); err == nil {
		t.Error("no error for unequal lengths")
	}
	p, err := stats.Compare([]float64{1, 2, 3}, []float64{1, 1, 1}, 1, stats.DefaultThresholds())
	if err != nil || p.N != 3 || p.Delta.Mean != 1 {
		t.Errorf("%+v %v", p, err)
	}
}
