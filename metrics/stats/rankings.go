package stats

import "math"

// KendallTau returns Kendall's tau-b between two rankings (ids best first)
// over the union of their items. An item missing from one ranking is
// placed after every item of it, tied with the other missing items, so two
// top-k lists with different members can be compared; tau-b accounts for
// those ties. Two identical rankings give 1, reversed ones -1. With fewer
// than two items, or when either side is all ties, it returns NaN.
func KendallTau(a, b []string) float64 {
	ra, rb := positions(a), positions(b)
	var items []string
	seen := map[string]bool{}
	for _, l := range [][]string{a, b} {
		for _, id := range l {
			if !seen[id] {
				seen[id] = true
				items = append(items, id)
			}
		}
	}
	rank := func(r map[string]int, n int, id string) int {
		if p, ok := r[id]; ok {
			return p
		}
		return n // after every ranked item, tied with the other missing ones
	}
	var conc, disc, tieA, tieB float64
	for i := 0; i < len(items); i++ {
		for j := i + 1; j < len(items); j++ {
			x := sign(float64(rank(ra, len(a), items[i]) - rank(ra, len(a), items[j])))
			y := sign(float64(rank(rb, len(b), items[i]) - rank(rb, len(b), items[j])))
			switch {
			case x == 0 && y == 0:
			case x == 0:
				tieA++
			case y == 0:
				tieB++
			case x == y:
				conc++
			default:
				disc++
			}
		}
	}
	den := math.Sqrt((conc + disc + tieA) * (conc + disc + tieB))
	if den == 0 {
		return math.NaN()
	}
	return (conc - disc) / den
}

// positions maps each id to its first position in l.
func positions(l []string) map[string]int {
	m := make(map[string]int, len(l))
	for i, id := range l {
		if _, ok := m[id]; !ok {
			m[id] = i
		}
	}
	return m
}

// JaccardAt returns |A ∩ B| / |A ∪ B| of the first k items of a and b (1
// when both are empty).
func JaccardAt(a, b []string, k int) float64 {
	ta, tb := topSet(a, k), topSet(b, k)
	inter := 0
	for id := range ta {
		if tb[id] {
			inter++
		}
	}
	union := len(ta) + len(tb) - inter
	if union == 0 {
		return 1
	}
	return float64(inter) / float64(union)
}

func topSet(l []string, k int) map[string]bool {
	m := map[string]bool{}
	for i := 0; i < len(l) && i < k; i++ {
		m[l[i]] = true
	}
	return m
}

// Top1Changed returns the share of ranking pairs whose first item differs
// (an empty ranking differs from a non-empty one; two empty ones do not).
// a and b are aligned: a[i] and b[i] are one query's two rankings.
func Top1Changed(a, b [][]string) float64 {
	n := min(len(a), len(b))
	if n == 0 {
		return 0
	}
	changed := 0
	for i := 0; i < n; i++ {
		if first(a[i]) != first(b[i]) {
			changed++
		}
	}
	return float64(changed) / float64(n)
}

func first(l []string) string {
	if len(l) == 0 {
		return "\x00none"
	}
	return l[0]
}

// Diff classes of two top-k lists (DiffClass).
const (
	DiffIdentical = "identical" // the same items in the same order
	DiffMinor     = "minor"     // the same items, in another order
	DiffMajor     = "major"     // different items
)

// DiffClass says how two rankings differ: DiffIdentical, DiffMinor (same
// set, order changed) or DiffMajor (set changed).
func DiffClass(a, b []string) string {
	if len(a) == len(b) {
		same := true
		for i := range a {
			if a[i] != b[i] {
				same = false
				break
			}
		}
		if same {
			return DiffIdentical
		}
	}
	ta, tb := topSet(a, len(a)), topSet(b, len(b))
	if len(ta) != len(tb) {
		return DiffMajor
	}
	for id := range ta {
		if !tb[id] {
			return DiffMajor
		}
	}
	return DiffMinor
}

// ListDiff is how two top-k lists of one query differ.
type ListDiff struct {
	Class       string  // DiffClass
	Tau         float64 // KendallTau (NaN when undefined)
	Jaccard     float64 // JaccardAt k
	Top1Changed bool    // the first item differs (an empty list's is none)
}

// DiffLists compares a and b, each already cut at depth k.
func DiffLists(a, b []string, k int) ListDiff {
	return ListDiff{Class: DiffClass(a, b), Tau: KendallTau(a, b), Jaccard: JaccardAt(a, b, k), Top1Changed: first(a) != first(b)}
}
