package stats

import (
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"
)

// TestFlipsUnsortedAsSorted: hits and Interval, which read the ranges in
// the order drawn, count and pick what a binary search over the sorted
// ranges and their sorted elements give, at every range end and between.
func TestFlipsUnsortedAsSorted(t *testing.T) {
	src := rand.New(rand.NewPCG(3, 5))
	for _, n := range []int{5, 12, 40, 300} {
		d := make([]float64, n)
		for i := range d {
			d[i] = src.NormFloat64() * 0.1
			if src.IntN(3) == 0 {
				d[i] = 0
			}
		}
		f := SignFlips(d, int64(n), DefaultThresholds())
		lo, hi := slices.Clone(f.lo), slices.Clone(f.hi)
		sortFloats(lo)
		sortFloats(hi)
		ref := func(delta float64) int {
			return sort.Search(len(lo), func(i int) bool { return lo[i] > delta }) -
				sort.Search(len(hi), func(i int) bool { return hi[i] >= delta })
		}
		deltas := []float64{0, math.Inf(-1), math.Inf(1), f.Mean}
		for i := 0; i < len(lo); i += max(1, len(lo)/200) {
			deltas = append(deltas, lo[i], hi[i], math.Nextafter(lo[i], math.Inf(1)), math.Nextafter(hi[i], math.Inf(-1)))
		}
		for _, delta := range deltas {
			if got, want := f.hits(delta), ref(delta); got != want {
				t.Fatalf("n %d: hits(%g) = %d, the sorted search %d", n, delta, got, want)
			}
		}
		for _, a := range []float64{0.5, 0.05, 0.01, 0.001} {
			total := len(lo)
			need := 0
			for need <= total && f.pOf(need) < a {
				need++
			}
			if need == 0 || need > total {
				continue
			}
			wantLo, wantHi := f.bound(lo[need-1], hi[total-need])
			if gotLo, gotHi := f.Interval(a); gotLo != wantLo || gotHi != wantHi {
				t.Errorf("n %d a %g: interval [%g, %g], sorted [%g, %g]", n, a, gotLo, gotHi, wantLo, wantHi)
			}
		}
	}
}
