package stats

import (
	"math"
	"slices"
)

// radixMin is the length from which sortFloats sorts by radix.
const radixMin = 512

// sortFloats sorts v ascending, as slices.Sort does, with the same
// float64s in the same places: by an LSD radix sort of the values' bits
// (ordered as integers) when v is long and holds no NaN and no -0 — then
// equal values are the same bits, so any correct sort leaves the same
// slice — else by slices.Sort. The sign-flip test sorts two slices of
// one value per sign vector (10,000 by default) per comparison.
func sortFloats(v []float64) {
	if len(v) < radixMin {
		slices.Sort(v)
		return
	}
	keys := make([]uint64, 2*len(v))
	src, dst := keys[:len(v)], keys[len(v):]
	const digit = 11
	const buckets = 1 << digit
	var count [(64 + digit - 1) / digit][buckets]int
	for i, x := range v {
		b := math.Float64bits(x)
		if x != x || b == 1<<63 { // NaN, -0
			slices.Sort(v)
			return
		}
		// Negative values: all bits flipped (larger magnitude first);
		// positive: the sign bit set (above every negative).
		b ^= -(b >> 63) | 1<<63
		src[i] = b
		for p := range count {
			count[p][b>>(p*digit)&(buckets-1)]++
		}
	}
	for p := range count {
		shift := p * digit
		if count[p][src[0]>>shift&(buckets-1)] == len(v) {
			continue // every key has this digit: the pass moves nothing
		}
		sum := 0
		for d := range count[p] {
			sum, count[p][d] = sum+count[p][d], sum
		}
		for _, k := range src {
			d := k >> shift & (buckets - 1)
			dst[count[p][d]] = k
			count[p][d]++
		}
		src, dst = dst, src
	}
	for i, b := range src {
		b ^= (b>>63 - 1) | 1<<63
		v[i] = math.Float64frombits(b)
	}
}
