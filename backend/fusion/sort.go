package fusion

import (
	"math"
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

// CountBefore returns how many entries of rs rank before u (Ranked.Before),
// for entries and u of which none scores NaN: the same count, without a
// branch per entry.
func CountBefore(rs []Ranked, u Ranked) int {
	n := 0
	for _, v := range rs {
		n += b2i(v.Score > u.Score) | b2i(v.Score == u.Score)&b2i(v.Unit > u.Unit)
	}
	return n
}

// AnyNaN reports whether an entry of rs scores NaN, without a branch per
// entry.
func AnyNaN(rs []Ranked) bool {
	nan := 0
	for _, r := range rs {
		nan |= b2i(r.Score != r.Score)
	}
	return nan != 0
}

// SortTop puts the first n elements of rs (all when n < 0 or n >= len)
// in ranking order (Ranked.Before), the order RankInto ranks by; the rest
// follow in an unspecified order (rs stays a permutation of itself). A
// caller holding ScoreInto's units ranks the best n of them without
// scoring again.
func (f *Fuser) SortTop(rs []Ranked, n int) { f.sortTop(rs, n) }

// keyed is a Ranked in the form the partitioning compares without
// branches: its score as an order key (orderKey), its unit (the tie rule)
// and its index in the input (to move the entry itself).
type keyed struct {
	key  uint64
	unit int32
	at   int32
}

// orderKey maps a score to an unsigned key that orders as before orders
// scores: a higher score has a higher key, -0 and +0 share one, and NaN
// has the lowest (0), below -Inf.
func orderKey(s float64) uint64 {
	switch {
	case s != s:
		return 0
	case s == 0:
		return 1 << 63
	}
	b := math.Float64bits(s)
	if b>>63 != 0 {
		return ^b
	}
	return b | 1<<63
}

// ahead is before over keyed entries, as 1 or 0, computed without
// branches: the partitioning's comparisons are unpredictable (about half
// go each way), and a mispredicted branch costs more than the comparison.
func ahead(a, b keyed) int {
	return b2i(a.key > b.key) | b2i(a.key == b.key)&b2i(a.unit > b.unit)
}

func b2i(b bool) int {
	if b { // compiled to a flag set, not a branch
		return 1
	}
	return 0
}

// sortTop is SortTop. It ranks keyed copies of the entries (f's scratch)
// with a quickselect that skips the partitions lying wholly past n —
// partitioning without branches, falling back to slices.SortFunc when it
// degenerates — and then moves the best n entries to the front
// (placeTop: a search's k or a recorded top), or every entry into that
// order.
func (f *Fuser) sortTop(rs []Ranked, n int) {
	if n < 0 || n > len(rs) {
		n = len(rs)
	}
	if n == 0 || len(rs) < 2 {
		return
	}
	if len(rs) <= insertionMax {
		insertionSort(rs)
		return
	}
	if n <= guessMax {
		f.placeTop(rs, f.fewTop(rs, n))
		return
	}
	ks := f.keyAll(rs)
	selectTop(ks, n)
	if n <= 64 {
		f.placeTop(rs, ks[:n])
		return
	}
	f.moved = append(f.moved[:0], rs...)
	for i, k := range ks {
		rs[i] = f.moved[k.at]
	}
}

// TopInto appends the best n entries of rs (all when n < 0 or n >=
// len(rs)) to dst[:0] in ranking order (Ranked.Before) and returns it,
// leaving rs as it is: SortTop for a caller that reads the rest of rs in
// its own order.
func (f *Fuser) TopInto(dst, rs []Ranked, n int) []Ranked {
	if n < 0 || n > len(rs) {
		n = len(rs)
	}
	dst = dst[:0]
	if n == 0 {
		return dst
	}
	if n > guessMax || len(rs) <= insertionMax {
		dst = append(dst, rs...)
		f.sortTop(dst, n)
		return dst[:n]
	}
	for _, k := range f.fewTop(rs, n) {
		dst = append(dst, rs[k.at])
	}
	return dst
}

// keyAll returns keyed copies of every entry of rs (f's scratch).
func (f *Fuser) keyAll(rs []Ranked) []keyed {
	ks := f.keys[:0]
	for i, r := range rs {
		ks = append(ks, keyed{key: orderKey(r.Score), unit: r.Unit, at: int32(i)})
	}
	f.keys = ks
	return ks
}

// fewTop returns the keyed copies of the best n entries of rs in ranking
// order (n <= guessMax, len(rs) > insertionMax): from those reaching
// the guessed threshold (guessTop), else from all of them, ranking a few
// more than asked for so that the last is the next call's guess.
func (f *Fuser) fewTop(rs []Ranked, n int) []keyed {
	if ks := f.guessTop(rs, n); ks != nil {
		return ks
	}
	ks := f.keyAll(rs)
	m := min(len(ks), guessAhead(n))
	selectTop(ks, m)
	f.guess, f.guessed = rs[ks[m-1].at].Score, true
	return ks[:n]
}

// guessMax is the largest n for which sortTop first tries guessTop.
const guessMax = 32

// guessAhead is the rank whose score a call takes as the next call's
// guess, for a top n: half as deep again as asked for, so that a like
// input (the next query of the same config) clears it with room to
// spare, and few more entries than asked for reach it.
func guessAhead(n int) int { return n + n/2 }

// guessTop is sortTop for a small n when f.guess, a score guessed from
// an earlier call (the guessAhead(n)-th best of the last full ranking),
// is a threshold at least n entries of rs reach: it keeps only the
// entries scoring at or above it (one pass without branches), ranks them
// and returns the keyed copies of the best n in order. Every entry below the threshold (or
// NaN) ranks below every entry kept, so the result is the full
// ranking's. When more than twice guessAhead(n) entries reach the guess
// it is raised to the guessAhead(n)-th best of them. It returns nil when
// fewer than n reach the threshold or there is no guess yet; the caller
// then ranks all of rs and guesses again.
// Successive queries of one config fuse alike, so the guess mostly holds
// and the ranking reads few entries.
func (f *Fuser) guessTop(rs []Ranked, n int) []keyed {
	if !f.guessed {
		return nil
	}
	g := f.guess
	if cap(f.at) < len(rs) {
		f.at = make([]int32, len(rs))
	}
	at := f.at[:len(rs)]
	j := 0
	for i, r := range rs {
		at[j] = int32(i)
		j += b2i(r.Score >= g)
	}
	if j < n {
		f.guessed = false // rank all, which guesses again
		return nil
	}
	ks := f.keys[:0]
	for _, i := range at[:j] {
		ks = append(ks, keyed{key: orderKey(rs[i].Score), unit: rs[i].Unit, at: i})
	}
	f.keys = ks
	if m := guessAhead(n); j > 2*m { // many reach the guess: raise it
		selectTop(ks, m)
		f.guess = rs[ks[m-1].at].Score
	} else { // keep it
		ks = f.bucketSort(ks)
	}
	return ks[:n]
}

// bucketBits is log2 of the buckets bucketSort spreads entries over.
const bucketBits = 5

// bucketSort returns ks in ranking order, sorted into f's scratch: the
// entries spread over buckets by the high bits of their key's distance
// from the lowest key (a counting sort, best bucket first), which leaves
// them almost in order, then an insertion sort puts them exactly in
// order, moving few entries and seldom mispredicting a branch. For the
// few dozen entries guessTop keeps.
func (f *Fuser) bucketSort(ks []keyed) []keyed {
	lo, hi := ks[0].key, ks[0].key
	for _, k := range ks[1:] {
		lo, hi = min(lo, k.key), max(hi, k.key)
	}
	shift := max(bits.Len64(hi-lo)-bucketBits, 0)
	var count [1 << bucketBits]int32
	for _, k := range ks {
		count[(1<<bucketBits-1)-int((k.key-lo)>>shift)]++ // best bucket first
	}
	var start int32
	for b, c := range count { // each bucket's first place
		count[b] = start
		start += c
	}
	out := grow(f.sorted, len(ks))
	f.sorted = out
	for _, k := range ks {
		b := (1<<bucketBits - 1) - int((k.key-lo)>>shift)
		out[count[b]] = k
		count[b]++
	}
	insertionSortKeyed(out)
	return out
}

// placeTop moves the entries of rs that top names (at most 64, in
// order) to its first len(top) places, in O(len(top)): the entries they
// displace move into the places the kept ones left, the rest of rs stays
// where it is, and rs stays a permutation of itself.
func (f *Fuser) placeTop(rs []Ranked, top []keyed) {
	n := len(top)
	old := append(f.moved[:0], rs[:n]...)
	f.moved = old
	var front uint64 // bit i: old[i] is among the top
	for k, t := range top {
		if int(t.at) < n {
			front |= 1 << t.at
			rs[k] = old[t.at]
		} else {
			rs[k] = rs[t.at]
		}
	}
	free := 0 // the next top entry that came from past the first n
	for i := range n {
		if front&(1<<i) != 0 {
			continue
		}
		for int(top[free].at) < n {
			free++
		}
		rs[top[free].at] = old[i]
		free++
	}
}

// insertionMax is the length up to which sortTop sorts by insertion.
const insertionMax = 16

// selectTop puts the first n of ks in order, partitioning only what
// holds them.
func selectTop(ks []keyed, n int) {
	budget := 2 * bits.Len(uint(len(ks)))
	for len(ks) > insertionMax && n > 0 {
		if budget == 0 {
			slices.SortFunc(ks, func(a, b keyed) int { return ahead(b, a) - ahead(a, b) })
			return
		}
		budget--
		p := partition(ks)
		switch {
		case p >= n: // the first n all lie left of the pivot
			ks = ks[:p]
		case p < len(ks)-p:
			selectTop(ks[:p], -1)
			ks, n = ks[p+1:], n-p-1
		default:
			selectTop(ks[p+1:], n-p-1)
			ks, n = ks[:p], p
		}
	}
	if n != 0 {
		insertionSortKeyed(ks)
	}
}

// insertionSortKeyed puts ks in ranking order by insertion.
func insertionSortKeyed(ks []keyed) {
	for i := 1; i < len(ks); i++ {
		x := ks[i]
		j := i
		for ; j > 0 && ahead(x, ks[j-1]) == 1; j-- {
			ks[j] = ks[j-1]
		}
		ks[j] = x
	}
}

// partition moves a median-of-three pivot to its final place and returns
// its index: entries before it rank above it, entries after rank below.
// Each entry is swapped into the front part and the boundary advanced by
// the comparison's 0 or 1 (Lomuto's scheme without a branch).
func partition(ks []keyed) int {
	last := len(ks) - 1
	mid := len(ks) / 2
	if ahead(ks[mid], ks[0]) == 1 {
		ks[mid], ks[0] = ks[0], ks[mid]
	}
	if ahead(ks[last], ks[0]) == 1 {
		ks[last], ks[0] = ks[0], ks[last]
	}
	if ahead(ks[last], ks[mid]) == 1 {
		ks[last], ks[mid] = ks[mid], ks[last]
	}
	// ks[0] ranks above ks[mid], above ks[last]: ks[mid] is the pivot,
	// parked at the end.
	ks[mid], ks[last] = ks[last], ks[mid]
	pivot := ks[last]
	j := 0
	for i := range last {
		x := ks[i]
		ks[i] = ks[j]
		ks[j] = x
		j += ahead(x, pivot)
	}
	ks[j], ks[last] = ks[last], ks[j]
	return j
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
