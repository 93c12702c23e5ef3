package stats_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/fusiontune/fusiontune/metrics/stats"
)

func sample(n int) []float64 {
	rng := rand.New(rand.NewPCG(1, 2))
	d := make([]float64, n)
	for i := range d {
		d[i] = rng.NormFloat64()
	}
	return d
}

// The statistics step runs these once per trial (and per category); a run
// has tens of trials over 50–1,000 queries.
func BenchmarkCompare(b *testing.B) {
	for _, n := range []int{90, 1000} {
		x, y := sample(n), sample(n)
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			for b.Loop() {
				if _, err := stats.Compare(x, y, 1, stats.DefaultThresholds()); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkCompareTied is Compare on 300 paired scores of which 57% are
// equal (zero differences), as in the SciFact grid of make bench-replay.
func BenchmarkCompareTied(b *testing.B) {
	x, y := sample(300), sample(300)
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range y {
		if rng.Float64() < 0.57 {
			y[i] = x[i]
		}
	}
	for b.Loop() {
		if _, err := stats.Compare(x, y, 1, stats.DefaultThresholds()); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSignedRank(b *testing.B) {
	for _, n := range []int{40, 1000} {
		d := sample(n)
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			for b.Loop() {
				stats.SignedRank(d, stats.DefaultThresholds())
			}
		})
	}
}

func BenchmarkPairedBootstrap(b *testing.B) {
	d := sample(90)
	for b.Loop() {
		stats.PairedBootstrap(d, 1, stats.DefaultThresholds())
	}
}

func BenchmarkPairedRandomization(b *testing.B) {
	d := sample(90)
	for b.Loop() {
		stats.PairedRandomization(d, 1, stats.DefaultThresholds())
	}
}

func BenchmarkKendallTau(b *testing.B) {
	a := make([]string, 20)
	c := make([]string, 20)
	for i := range a {
		a[i] = fmt.Sprint("d", i)
		c[i] = fmt.Sprint("d", (i*7)%23)
	}
	for b.Loop() {
		stats.KendallTau(a, c)
	}
}

func BenchmarkSignFlips(b *testing.B) {
	d := sample(90)
	for b.Loop() {
		stats.SignFlips(d, 1, stats.DefaultThresholds())
	}
}
