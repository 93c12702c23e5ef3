package fusion

import (
	"math/bits"
	"slices"
)

// Ranked is one entry of a fused ranking by unit (see Fuser.RankInto).
type Ranked struct {
	Score float64
	Unit  int32 // index into Prepared.IDs and Prepared.DocIDs
}

// Before reports whether r ranks above s in a fused ranking (RankInto's
// order).
func (r Ranked) Before(s Ranked) bool { return before(r, s) }

// before reports whether a ranks above b: higher score first, NaN below
// every number, then higher unit. Units are numbered in id order (see
// buildView), so equal scores break by id descending: TieRule, the order
// trec_eval gives a run file's tied scores. Units are unique, so this is a
// strict total order, which the partitioning below relies on.
func before(a, b Ranked) bool {
	if a.Score > b.Score {
		return true
	}
	if a.Score < b.Score {
		return false
	}
	if an, bn := a.Score != a.Score, b.Score != b.Score; an != bn {
		return bn
	}
	return a.Unit > b.Unit
}

// SortTop puts the first n elements of rs (all when n < 0 or n >= len)
// in ranking order (Ranked.Before), the order RankInto ranks by; the order
// of the rest is unspecified. A caller holding ScoreInto's units ranks the
// best n of them without scoring again.
func SortTop(rs []Ranked, n int) { sortTop(rs, n) }

// sortTop puts the first n elements of rs (all when n < 0 or n >= len) in
// ranking order; the order of the rest is unspecified. It is a quicksort
// specialised to Ranked (the replay hot path spends most of its time here)
// that skips the partitions lying wholly past n, falling back to
// slices.SortFunc when partitioning degenerates.
func sortTop(rs []Ranked, n int) {
	if n < 0 || n > len(rs) {
		n = len(rs)
	}
	budget := 2 * bits.Len(uint(len(rs)))
	for len(rs) > 16 && n > 0 {
		if budget == 0 {
			slices.SortFunc(rs, compare)
			return
		}
		budget--
		p := partition(rs)
		switch {
		case p >= n: // the first n all lie left of the pivot
			rs = rs[:p]
		case p < len(rs)-p:
			sortTop(rs[:p], -1)
			rs, n = rs[p+1:], n-p-1
		default:
			sortTop(rs[p+1:], n-p-1)
			rs, n = rs[:p], p
		}
	}
	if n > 0 {
		insertionSort(rs)
	}
}

// compare is before as a three-way comparison.
func compare(a, b Ranked) int {
	switch {
	case before(a, b):
		return -1
	case before(b, a):
		return 1
	}
	return 0
}

// partition moves a median-of-three pivot to its final place and returns
// its index: elements before it rank above it, elements after rank below.
func partition(rs []Ranked) int {
	last := len(rs) - 1
	mid := len(rs) / 2
	if before(rs[mid], rs[0]) {
		rs[mid], rs[0] = rs[0], rs[mid]
	}
	if before(rs[last], rs[0]) {
		rs[last], rs[0] = rs[0], rs[last]
	}
	if before(rs[last], rs[mid]) {
		rs[last], rs[mid] = rs[mid], rs[last]
	}
	// rs[0] <= rs[mid] <= rs[last]; use rs[mid] as pivot, parked at last-1.
	rs[mid], rs[last-1] = rs[last-1], rs[mid]
	pivot := rs[last-1]
	i, j := 0, last-1
	for {
		for i++; before(rs[i], pivot); i++ {
		}
		for j--; before(pivot, rs[j]); j-- {
		}
		if i >= j {
			break
		}
		rs[i], rs[j] = rs[j], rs[i]
	}
	rs[i], rs[last-1] = rs[last-1], rs[i]
	return i
}

func insertionSort(rs []Ranked) {
	for i := 1; i < len(rs); i++ {
		x := rs[i]
		j := i
		for ; j > 0 && before(x, rs[j-1]); j-- {
			rs[j] = rs[j-1]
		}
		rs[j] = x
	}
}
