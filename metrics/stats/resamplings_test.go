package stats

import (
	"context"
	"math"
	"math/rand/v2"
	"sync"
	"testing"
)

// drawnOneByOne is bootstrapMean's resampled means drawn from the seeded
// generator one index at a time (the reference for the kept indexes).
func drawnOneByOne(v []float64, seed int64, resamples int) []float64 {
	rng := newPCG(seed)
	means := make([]float64, resamples)
	for b := range means {
		var s float64
		for range v {
			s += v[index(rng.Uint64(), uint64(len(v)))]
		}
		means[b] = s / float64(len(v))
	}
	return means
}

// TestKeptResamplingsAreTheDraws: the resampling indexes kept for reuse
// are the ones drawn one by one, so every interval is the same bit for
// bit — first use, reuse by trials comparing at once, after other seeds
// pushed a set out, and beyond the size kept (drawn as before).
func TestKeptResamplingsAreTheDraws(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	th := DefaultThresholds()
	for _, tc := range []struct {
		name      string
		n, copies int
		seed      int64
	}{
		{"small", 5, th.Resamples, 1},
		{"queries", 300, th.Resamples, 42},
		{"another seed", 300, th.Resamples, 43},
		{"too many to keep", maxKeptIndexes/1000 + 1, 1000, 9},
	} {
		t.Run(tc.name, func(t *testing.T) {
			th := th
			th.Resamples = tc.copies
			v := make([]float64, tc.n)
			for i := range v {
				v[i] = rng.Float64()
			}
			means := drawnOneByOne(v, tc.seed, tc.copies)
			want := make([]float64, len(means))
			copy(want, means)
			var wg sync.WaitGroup
			got := make([]Interval, 3)
			for k := range got {
				wg.Go(func() { got[k], _ = bootstrapMean(context.Background(), v, tc.seed, th) })
			}
			wg.Wait()
			// Calls at once agree (each interval is checked against the
			// one-by-one draws below, through the kept indexes).
			ref, _ := bootstrapMean(context.Background(), v, tc.seed, th)
			for k, iv := range got {
				if math.Float64bits(iv.Low) != math.Float64bits(ref.Low) || math.Float64bits(iv.High) != math.Float64bits(ref.High) {
					t.Errorf("call %d: interval [%v, %v], want [%v, %v]", k, iv.Low, iv.High, ref.Low, ref.High)
				}
			}
			idx := resampleIndexes(tc.seed, tc.n, tc.copies)
			if tc.n*tc.copies > maxKeptIndexes {
				if idx != nil {
					t.Fatalf("%d indexes kept, want none beyond %d", len(idx), maxKeptIndexes)
				}
				return
			}
			for b := range tc.copies {
				var s float64
				for _, j := range idx[b*tc.n : (b+1)*tc.n] {
					s += v[j]
				}
				if m := s / float64(tc.n); math.Float64bits(m) != math.Float64bits(want[b]) {
					t.Fatalf("resample %d: mean %v from the kept indexes, %v drawn one by one", b, m, want[b])
				}
			}
		})
	}
	// Pushed out by other seeds, a set is drawn again: the same one.
	first := resampleIndexes(1, 300, 100)
	for s := range int64(keptResamplings + 1) {
		resampleIndexes(100+s, 300, 100)
	}
	again := resampleIndexes(1, 300, 100)
	if &first[0] == &again[0] {
		t.Fatal("the set was not pushed out")
	}
	for i := range first {
		if first[i] != again[i] {
			t.Fatalf("index %d: %d drawn first, %d again", i, first[i], again[i])
		}
	}
}
