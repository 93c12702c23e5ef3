package stats

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// oneAtATime is the sign-flip loop randomFlips replaces: one vector at a
// time, its words drawn as it goes. randomFlips must give the same sums,
// bit for bit, in the same order.
func oneAtATime(d []float64, rng *rand.PCG, perms int) (sums []float64, flips []int) {
	for range perms {
		var fs float64
		flipped := uint64(0)
		var word uint64
		for i, v := range d {
			if i%64 == 0 {
				word = rng.Uint64()
			}
			bit := word & 1
			fs += v * float64(bit)
			flipped += bit
			word >>= 1
		}
		sums, flips = append(sums, fs), append(flips, int(flipped))
	}
	return sums, flips
}

// TestRandomFlipsEqualOneAtATime: the sign vectors summed four at a time
// give the sums and flip counts of the vectors summed one at a time, bit
// for bit and in order, for sample sizes below, at and across the 64
// bits of a word, counts not a multiple of the lanes, and differences of
// very different magnitudes (where the order of the additions shows) or
// exactly zero (+0 and -0; randomFlips skips them): a quarter of them,
// most of them (as in comparisons of similar configurations, where most
// queries score the same), or all.
func TestRandomFlipsEqualOneAtATime(t *testing.T) {
	for _, n := range []int{1, 17, 63, 64, 65, 90, 128, 300, 1001} {
		for _, perms := range []int{1, 3, 4, 5, 103, 1000} {
			for _, zeros := range []int{2, 6, 8} { // in 8
				t.Run(fmt.Sprintf("n=%d/perms=%d/zeros=%d:8", n, perms, zeros), func(t *testing.T) {
					randomFlipsEqualOneAtATime(t, n, perms, zeros)
				})
			}
		}
	}
}

func randomFlipsEqualOneAtATime(t *testing.T, n, perms, zeros int) {
	src := rand.New(rand.NewPCG(uint64(n), uint64(perms)))
	d := make([]float64, n)
	for i := range d {
		d[i] = src.NormFloat64() * math.Pow(10, float64(src.IntN(30)-15))
		if z := src.IntN(8); z < zeros { // exact zeros of both signs
			d[i] = math.Copysign(0, float64(z%2*2-1))
		}
	}
	wantSums, wantFlips := oneAtATime(d, newPCG(42), perms)
	var sums []float64
	var flips []int
	err := randomFlips(context.Background(), d, newPCG(42), perms, func(fs float64, flipped int) {
		sums, flips = append(sums, fs), append(flips, flipped)
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(sums) != perms {
		t.Fatalf("%d vectors, want %d", len(sums), perms)
	}
	for i := range sums {
		if math.Float64bits(sums[i]) != math.Float64bits(wantSums[i]) || flips[i] != wantFlips[i] {
			t.Fatalf("vector %d: sum %v flips %d, one at a time %v %d", i, sums[i], flips[i], wantSums[i], wantFlips[i])
		}
	}
}
