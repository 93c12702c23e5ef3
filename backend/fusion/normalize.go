package fusion

import (
	"fmt"
	"math"
)

// Normalize writes the normalization of scores into dst (grown as needed)
// and returns it. The rules, each over one truncated (and, in document
// mode, collapsed) list:
//
//   - min_max: (s - min) / (max - min); a constant list, including a list
//     of one candidate, normalizes to 1 everywhere (every candidate is as
//     good as the list's best).
//   - z_score: (s - mean) / stddev with the population stddev; a constant
//     list normalizes to 0 everywhere.
//   - l2: s / sqrt(sum of s^2); an all-zero list stays 0.
//   - none: the raw scores.
//
// Each divides by multiplying with the reciprocal (one division per list,
// not per score); sums run in list order, so the result is bit-for-bit
// reproducible. An
// unknown normalization panics: validate Params first.
func Normalize(dst, scores []float64, n Normalization) []float64 {
	dst = grow(dst, len(scores))
	if len(scores) == 0 {
		return dst
	}
	switch n {
	case MinMax:
		minMax(dst, scores)
	case ZScore:
		zScore(dst, scores)
	case L2:
		var ss float64
		for _, s := range scores {
			ss += s * s
		}
		norm := math.Sqrt(ss)
		if norm == 0 {
			clear(dst)
			return dst
		}
		inv := 1 / norm
		for i, s := range scores {
			dst[i] = s * inv
		}
	case None:
		copy(dst, scores)
	default:
		panic(fmt.Sprintf("fusion: unknown normalization %q", n))
	}
	return dst
}

// minMax sets dst to the min-max normalization of scores (not empty): 1
// everywhere for a constant list.
func minMax(dst, scores []float64) {
	lo, hi := scores[0], scores[0]
	for _, s := range scores[1:] {
		lo = min(lo, s)
		hi = max(hi, s)
	}
	if hi == lo {
		for i := range dst {
			dst[i] = 1
		}
		return
	}
	inv := 1 / (hi - lo)
	for i, s := range scores {
		dst[i] = (s - lo) * inv
	}
}

// zScore sets dst to the z-scores of scores (not empty), with the
// population standard deviation: 0 everywhere for a constant list.
func zScore(dst, scores []float64) {
	var sum float64
	for _, s := range scores {
		sum += s
	}
	mean := sum / float64(len(scores))
	var ss float64
	for _, s := range scores {
		d := s - mean
		ss += d * d
	}
	sd := math.Sqrt(ss / float64(len(scores)))
	if sd == 0 {
		clear(dst)
		return
	}
	inv := 1 / sd
	for i, s := range scores {
		dst[i] = (s - mean) * inv
	}
}

// grow returns s resliced to n elements, reallocating when too small.
func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}
