package stats

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSortFloatsEqualsSlicesSort: sortFloats leaves the slice
// slices.Sort leaves, bit for bit: short and long slices, values of both
// signs and every magnitude, infinities, many repeats (the sign-flip
// ranges repeat), all equal, and the fallbacks (a NaN, a -0 among +0s).
func TestSortFloatsEqualsSlicesSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	gens := map[string]func(i int) float64{
		"normal":   func(int) float64 { return rng.NormFloat64() },
		"wide":     func(int) float64 { return rng.NormFloat64() * math.Pow(10, float64(rng.IntN(600)-300)) },
		"repeats":  func(int) float64 { return float64(rng.IntN(7)-3) / 3 },
		"infinite": func(i int) float64 { return []float64{math.Inf(-1), math.Inf(1), rng.NormFloat64(), 0}[i%4] },
		"equal":    func(int) float64 { return 0.25 },
		"nan":      func(i int) float64 { return []float64{math.NaN(), rng.NormFloat64()}[min(i%100, 1)] },
		"zeros":    func(i int) float64 { return []float64{math.Copysign(0, -1), 0, 0, 1, -1}[i%5] },
	}
	for name, gen := range gens {
		for _, n := range []int{0, 1, 100, radixMin, 10_000, 10_001} {
			t.Run(fmt.Sprintf("%s/n=%d", name, n), func(t *testing.T) {
				v := make([]float64, n)
				for i := range v {
					v[i] = gen(i)
				}
				want := slices.Clone(v)
				slices.Sort(want)
				sortFloats(v)
				for i := range v {
					if math.Float64bits(v[i]) != math.Float64bits(want[i]) && !(v[i] != v[i] && want[i] != want[i]) {
						t.Fatalf("at %d: %v (%#x), slices.Sort %v (%#x)", i, v[i], math.Float64bits(v[i]), want[i], math.Float64bits(want[i]))
					}
				}
			})
		}
	}
}

// TestOrderStatIsSortedElement: orderStat gives, bit for bit, element k of
// the sorted copy, for every k, on lengths from 1 up, with duplicates,
// infinities, zeros of both signs and NaN; and leaves its input as it was.
func TestOrderStatIsSortedElement(t *testing.T) {
	src := rand.New(rand.NewPCG(7, 11))
	for _, tt := range []struct {
		name string
		gen  func() float64
	}{
		{"normal", func() float64 { return src.NormFloat64() }},
		{"few values", func() float64 { return float64(src.IntN(3)) }},
		{"infinities", func() float64 {
			switch src.IntN(4) {
			case 0:
				return math.Inf(-1)
			case 1:
				return math.Inf(1)
			}
			return src.NormFloat64()
		}},
		{"signed zeros", func() float64 { return math.Copysign(0, float64(src.IntN(2)*2-1)) }},
		{"NaN", func() float64 {
			if src.IntN(10) == 0 {
				return math.NaN()
			}
			return src.NormFloat64()
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			for _, n := range []int{1, 2, 3, 7, 64, 513, 2000} {
				v := make([]float64, n)
				for i := range v {
					v[i] = tt.gen()
				}
				before := slices.Clone(v)
				sorted := slices.Clone(v)
				sortFloats(sorted)
				for k := range n {
					if got := orderStat(v, k); math.Float64bits(got) != math.Float64bits(sorted[k]) && !(got != got && sorted[k] != sorted[k]) {
						t.Fatalf("n %d k %d: %v, want %v", n, k, got, sorted[k])
					}
				}
				for i := range v {
					if math.Float64bits(v[i]) != math.Float64bits(before[i]) {
						t.Fatalf("n %d: the input changed at %d", n, i)
					}
				}
			}
		})
	}
}
