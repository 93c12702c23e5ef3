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
//
// A difference that is exactly zero (+0 or -0) adds nothing whether
// flipped or not: a sum that starts at +0 is never -0, and adding ±0 to
// any other value leaves it unchanged. So only the non-zero differences
// are summed (paired scores are often equal: about half the queries of a
// typical comparison), each still read at its own bit, in index order;
// the flip counts count every bit.
func randomFlips(ctx context.Context, d []float64, rng *rand.PCG, perms int, add func(fs float64, flipped int)) error {
	words := (len(d) + 63) / 64
	nz := nonZeroOf(d, words)
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
			keep := nz.keep[w] // the word's bits in use
			c0, c1 = c0+bits.OnesCount64(w0&keep), c1+bits.OnesCount64(w1&keep)
			c2, c3 = c2+bits.OnesCount64(w2&keep), c3+bits.OnesCount64(w3&keep)
			for k := nz.start[w]; k < nz.start[w+1]; k++ {
				// v where the bit is set, else +0 — what v times the bit
				// adds (±0 added to a sum that is never -0 changes nothing).
				// The bit, shifted to the top and spread by an arithmetic
				// shift, is the mask.
				up, vb := nz.up[k]&63, nz.bits[k]
				fs0 += math.Float64frombits(vb & uint64(int64(w0<<up)>>63))
				fs1 += math.Float64frombits(vb & uint64(int64(w1<<up)>>63))
				fs2 += math.Float64frombits(vb & uint64(int64(w2<<up)>>63))
				fs3 += math.Float64frombits(vb & uint64(int64(w3<<up)>>63))
			}
		}
		add(fs0, c0)
		add(fs1, c1)
		add(fs2, c2)
		add(fs3, c3)
	}
	return nil
}

// nonZero are the non-zero differences of d, in index order, by word of
// the sign vectors: word w's are entries start[w] to start[w+1], each
// with the left shift that moves its bit in the word to the top (63 - the
// bit) and its float64 bits; keep[w] masks the word's bits in use.
type nonZero struct {
	start []int
	up    []uint8
	bits  []uint64
	keep  []uint64
}

func nonZeroOf(d []float64, words int) nonZero {
	nz := nonZero{start: make([]int, words+1), keep: make([]uint64, words)}
	for w := range words {
		seg := d[w*64 : min(w*64+64, len(d))]
		nz.keep[w] = ^uint64(0) >> (64 - len(seg))
		for i, v := range seg {
			if v != 0 {
				nz.up = append(nz.up, uint8(63-i))
				nz.bits = append(nz.bits, math.Float64bits(v))
			}
		}
		nz.start[w+1] = len(nz.bits)
	}
	return nz
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
