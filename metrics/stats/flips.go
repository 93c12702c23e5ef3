package stats

import (
	"context"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
)

// flipLanes is how many random sign vectors randomFlips sums at once:
// independent sums the processor adds side by side. Each lane adds its
// vector's flipped differences in index order, as one vector at a time
// would, so every sum is the same float64 bit for bit; the words are
// drawn from rng in the same order too (a vector's words, then the next
// vector's).
const flipLanes = 4

// randomFlips draws perms random sign vectors of d from rng (a vector
// takes ceil(len(d)/64) words; bit i%64 of word i/64 set flips d[i]) and
// hands each, in order, to add: the sum of its flipped differences (added
// in index order) and how many it flips. It looks at ctx every
// checkEvery vectors.
func randomFlips(ctx context.Context, d []float64, rng *rand.PCG, perms int, add func(fs float64, flipped int)) error {
	words := (len(d) + 63) / 64
	buf := make([]uint64, flipLanes*words)
	for b := 0; b < perms; b += flipLanes {
		if b%checkEvery < flipLanes && ctx.Err() != nil {
			return fmt.Errorf("stats: randomization: %w", ctx.Err())
		}
		m := min(flipLanes, perms-b)
		for j := range buf[:m*words] {
			buf[j] = rng.Uint64()
		}
		if m < flipLanes {
			for l := range m {
				fs, flipped := flipSum(d, buf[l*words:(l+1)*words])
				add(fs, flipped)
			}
			continue
		}
		var fs0, fs1, fs2, fs3 float64
		var c0, c1, c2, c3 int
		for w := range words {
			w0, w1, w2, w3 := buf[w], buf[words+w], buf[2*words+w], buf[3*words+w]
			seg := d[w*64 : min(w*64+64, len(d))]
			keep := ^uint64(0) >> (64 - len(seg)) // the word's bits in use
			c0, c1 = c0+bits.OnesCount64(w0&keep), c1+bits.OnesCount64(w1&keep)
			c2, c3 = c2+bits.OnesCount64(w2&keep), c3+bits.OnesCount64(w3&keep)
			for _, v := range seg {
				// v where the bit is set, else +0 — what v times the bit
				// adds (±0 added to a sum that is never -0 changes nothing).
				vb := math.Float64bits(v)
				fs0 += math.Float64frombits(vb & -(w0 & 1))
				fs1 += math.Float64frombits(vb & -(w1 & 1))
				fs2 += math.Float64frombits(vb & -(w2 & 1))
				fs3 += math.Float64frombits(vb & -(w3 & 1))
				w0, w1, w2, w3 = w0>>1, w1>>1, w2>>1, w3>>1
			}
		}
		add(fs0, c0)
		add(fs1, c1)
		add(fs2, c2)
		add(fs3, c3)
	}
	return nil
}

// flipSum is one sign vector's sum of flipped differences (bits as
// randomFlips reads them) and how many it flips.
func flipSum(d []float64, words []uint64) (float64, int) {
	var fs float64
	flipped := uint64(0)
	var word uint64
	for i, v := range d {
		if i%64 == 0 {
			word = words[i/64]
		}
		bit := word & 1
		fs += v * float64(bit)
		flipped += bit
		word >>= 1
	}
	return fs, int(flipped)
}
