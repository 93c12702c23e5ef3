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

// orderStat returns v's element k once sorted ascending as sortFloats
// sorts it, without sorting v (which may be read concurrently): it
// partitions a copy around median-of-three pivots, three ways, into the
// part holding k (Hoare's selection, linear on average). A copy holding a
// NaN or a -0, whose places a sort decides among equal or unordered
// values, is sorted by sortFloats instead; so is one whose partitions keep
// going badly.
func orderStat(v []float64, k int) float64 {
	w := slices.Clone(v)
	for _, x := range w {
		if x != x || math.Float64bits(x) == 1<<63 {
			sortFloats(w)
			return w[k]
		}
	}
	lo, hi := 0, len(w)-1
	for depth := 0; lo < hi; depth++ {
		if depth > 64 {
			slices.Sort(w[lo : hi+1])
			return w[k]
		}
		p := median3(w[lo], w[lo+(hi-lo)/2], w[hi])
		// w[lo:lt] < p, w[lt:i] == p, w[gt+1:hi+1] > p.
		lt, i, gt := lo, lo, hi
		for i <= gt {
			switch x := w[i]; {
			case x < p:
				w[lt], w[i] = x, w[lt]
				lt++
				i++
			case x > p:
				w[i], w[gt] = w[gt], x
				gt--
			default:
				i++
			}
		}
		switch {
		case k < lt:
			hi = lt - 1
		case k > gt:
			lo = gt + 1
		default:
			return p
		}
	}
	return w[k]
}

// median3 returns the median of a, b and c.
func median3(a, b, c float64) float64 {
	if a > b {
		a, b = b, a
	}
	if b > c {
		b = c
	}
	return max(a, b)
}
