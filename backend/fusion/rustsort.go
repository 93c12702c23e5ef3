package fusion

import "math/bits"

// rustSortUnstable sorts v as Rust's slice::sort_unstable_by does (the
// standard library's ipnsort, Rust 1.81 and later, for a Copy type of at
// most 8 bytes such as Arrow's (u32 index, f32 value) pairs): insertion
// sort up to 20 elements; beyond, an existing run is kept (reversed when
// strictly descending), otherwise a quicksort with the glidesort pivot,
// a branchless cyclic Lomuto partition, a sorting network small-sort up to
// 32 elements and a heapsort fallback. The algorithm is deterministic, so
// equal elements end in the same order as in Rust; it is not stable.
// less must be a strict weak order.
func rustSortUnstable[T any](v []T, less func(a, b *T) bool) {
	n := len(v)
	if n < 2 {
		return
	}
	if n <= 20 {
		rustInsertionSort(v, 1, less)
		return
	}
	run, reversed := rustExistingRun(v, less)
	if run == n {
		if reversed {
			for i, j := 0, n-1; i < j; i, j = i+1, j-1 {
				v[i], v[j] = v[j], v[i]
			}
		}
		return
	}
	limit := 2 * (bits.Len(uint(n|1)) - 1)
	rustQuicksort(v, nil, limit, less)
}

// rustExistingRun is the length of the sorted run v starts with and
// whether it is strictly descending.
func rustExistingRun[T any](v []T, less func(a, b *T) bool) (int, bool) {
	n := len(v)
	run := 2
	desc := less(&v[1], &v[0])
	if desc {
		for run < n && less(&v[run], &v[run-1]) {
			run++
		}
	} else {
		for run < n && !less(&v[run], &v[run-1]) {
			run++
		}
	}
	return run, desc
}

func rustQuicksort[T any](v []T, ancestor *T, limit int, less func(a, b *T) bool) {
	for {
		if len(v) <= 32 {
			rustSmallSortNetwork(v, less)
			return
		}
		if limit == 0 {
			rustHeapsort(v, less)
			return
		}
		limit--
		p := rustChoosePivot(v, less)
		if ancestor != nil && !less(ancestor, &v[p]) {
			// The pivot equals its ancestor, the smallest element left:
			// put the elements equal to it first and go on with the rest.
			lt := rustPartition(v, p, func(a, b *T) bool { return !less(b, a) })
			v, ancestor = v[lt+1:], nil
			continue
		}
		lt := rustPartition(v, p, less)
		rustQuicksort(v[:lt], ancestor, limit, less)
		ancestor, v = &v[lt], v[lt+1:]
	}
}

// rustPartition moves v[pivot] to its place after the elements less than
// it and returns that place.
func rustPartition[T any](v []T, pivot int, less func(a, b *T) bool) int {
	v[0], v[pivot] = v[pivot], v[0]
	lt := rustLomutoCyclic(v[1:], &v[0], less)
	v[0], v[lt] = v[lt], v[0]
	return lt
}

// rustLomutoCyclic is the branchless Lomuto partition with a cyclic
// permutation (two elements per step for small types), element moves
// included, since they decide where equal elements end.
func rustLomutoCyclic[T any](v []T, pivot *T, less func(a, b *T) bool) int {
	n := len(v)
	if n == 0 {
		return 0
	}
	saved := v[0]
	lt, right, gap := 0, 1, 0
	step := func(useSaved bool) {
		r := saved
		if !useSaved {
			r = v[right]
		}
		isLt := less(&r, pivot)
		v[gap] = v[lt]
		v[lt] = r
		gap = right
		if isLt {
			lt++
		}
		right++
	}
	for right < n-1 {
		step(false)
		step(false)
	}
	for {
		done := right == n
		step(done)
		if done {
			return lt
		}
	}
}

// rustChoosePivot is the glidesort pivot: a median of three samples, or a
// recursive pseudo-median of them from 64 elements on.
func rustChoosePivot[T any](v []T, less func(a, b *T) bool) int {
	n8 := len(v) / 8
	a, b, c := 0, n8*4, n8*7
	if len(v) < 64 {
		return rustMedian3(v, a, b, c, less)
	}
	return rustMedian3Rec(v, a, b, c, n8, less)
}

func rustMedian3Rec[T any](v []T, a, b, c, n int, less func(a, b *T) bool) int {
	if n*8 >= 64 {
		n8 := n / 8
		a = rustMedian3Rec(v, a, a+n8*4, a+n8*7, n8, less)
		b = rustMedian3Rec(v, b, b+n8*4, b+n8*7, n8, less)
		c = rustMedian3Rec(v, c, c+n8*4, c+n8*7, n8, less)
	}
	return rustMedian3(v, a, b, c, less)
}

func rustMedian3[T any](v []T, a, b, c int, less func(a, b *T) bool) int {
	x, y := less(&v[a], &v[b]), less(&v[a], &v[c])
	if x != y {
		return a
	}
	if less(&v[b], &v[c]) != x {
		return c
	}
	return b
}

func rustHeapsort[T any](v []T, less func(a, b *T) bool) {
	n := len(v)
	for i := n + n/2 - 1; i >= 0; i-- {
		node := 0
		if i >= n {
			node = i - n
		} else {
			v[0], v[i] = v[i], v[0]
		}
		h := v[:min(i, n)]
		for {
			child := 2*node + 1
			if child >= len(h) {
				break
			}
			if child+1 < len(h) && less(&h[child], &h[child+1]) {
				child++
			}
			if !less(&h[node], &h[child]) {
				break
			}
			h[node], h[child] = h[child], h[node]
			node = child
		}
	}
}

// rustSmallSortNetwork sorts up to 32 elements: below 18 as one region,
// else each half, by a sorting network of 13 or 9 and insertion sort,
// the halves then merged from both ends.
func rustSmallSortNetwork[T any](v []T, less func(a, b *T) bool) {
	n := len(v)
	if n < 2 {
		return
	}
	half := n / 2
	noMerge := n < 18
	region := v[:half]
	if noMerge {
		region = v
	}
	for second := false; ; second = true {
		pre := 1
		switch {
		case len(region) >= 13:
			rustNetwork(region, sort13Network, less)
			pre = 13
		case len(region) >= 9:
			rustNetwork(region, sort9Network, less)
			pre = 9
		}
		rustInsertionSort(region, pre, less)
		if noMerge {
			return
		}
		if second {
			break
		}
		region = v[half:]
	}
	dst := make([]T, n)
	rustBidirectionalMerge(v, dst, less)
	copy(v, dst)
}

// The optimal sorting networks of 9 and 13 inputs, compare-exchanges in
// order (bertdobbelaere.github.io/sorting_networks.html).
var (
	sort9Network = [][2]int{{0, 3}, {1, 7}, {2, 5}, {4, 8}, {0, 7}, {2, 4}, {3, 8}, {5, 6}, {0, 2}, {1, 3}, {4, 5}, {7, 8},
		{1, 4}, {3, 6}, {5, 7}, {0, 1}, {2, 4}, {3, 5}, {6, 8}, {2, 3}, {4, 5}, {6, 7}, {1, 2}, {3, 4}, {5, 6}}
	sort13Network = [][2]int{{0, 12}, {1, 10}, {2, 9}, {3, 7}, {5, 11}, {6, 8}, {1, 6}, {2, 3}, {4, 11}, {7, 9}, {8, 10},
		{0, 4}, {1, 2}, {3, 6}, {7, 8}, {9, 10}, {11, 12}, {4, 6}, {5, 9}, {8, 11}, {10, 12}, {0, 5}, {3, 8}, {4, 7},
		{6, 11}, {9, 10}, {0, 1}, {2, 5}, {6, 9}, {7, 8}, {10, 11}, {1, 3}, {2, 4}, {5, 6}, {9, 10}, {1, 2}, {3, 4},
		{5, 7}, {6, 8}, {2, 3}, {4, 5}, {6, 7}, {8, 9}, {3, 4}, {5, 6}}
)

// rustNetwork applies a network: each pair is exchanged when the second
// is less than the first (never when equal).
func rustNetwork[T any](v []T, network [][2]int, less func(a, b *T) bool) {
	for _, p := range network {
		if less(&v[p[1]], &v[p[0]]) {
			v[p[0]], v[p[1]] = v[p[1]], v[p[0]]
		}
	}
}

// rustInsertionSort sorts v whose first offset elements are sorted.
func rustInsertionSort[T any](v []T, offset int, less func(a, b *T) bool) {
	for tail := offset; tail < len(v); tail++ {
		if !less(&v[tail], &v[tail-1]) {
			continue
		}
		tmp := v[tail]
		dst, sift := tail, tail-1
		for {
			v[dst] = v[sift]
			dst = sift
			if sift == 0 {
				break
			}
			sift--
			if !less(&tmp, &v[sift]) {
				break
			}
		}
		v[dst] = tmp
	}
}

// rustBidirectionalMerge merges the sorted halves src[:len/2] and
// src[len/2:] into dst, from the front and from the back at once.
func rustBidirectionalMerge[T any](src, dst []T, less func(a, b *T) bool) {
	n := len(src)
	half := n / 2
	left, right, d := 0, half, 0
	leftRev, rightRev, dRev := half-1, n-1, n-1
	for range half {
		if !less(&src[right], &src[left]) {
			dst[d] = src[left]
			left++
		} else {
			dst[d] = src[right]
			right++
		}
		d++
		if !less(&src[rightRev], &src[leftRev]) {
			dst[dRev] = src[rightRev]
			rightRev--
		} else {
			dst[dRev] = src[leftRev]
			leftRev--
		}
		dRev--
	}
	if n%2 != 0 {
		if left < leftRev+1 {
			dst[d] = src[left]
		} else {
			dst[d] = src[right]
		}
	}
}
