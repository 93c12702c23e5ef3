package suggest

import "strings"

// Closest returns the candidate nearest to word by Levenshtein distance
// (case-insensitive), or "" when none is close enough to be a likely typo:
// at most one edit for words of up to 4 characters, two up to 8, three
// beyond. Ties go to the earlier candidate.
func Closest(word string, candidates []string) string {
	w := strings.ToLower(word)
	best, bestD := "", -1
	for _, c := range candidates {
		d := Distance(w, strings.ToLower(c))
		if d == 0 {
			return c
		}
		if bestD < 0 || d < bestD {
			best, bestD = c, d
		}
	}
	if bestD < 0 || bestD > maxEdits(len([]rune(word))) {
		return ""
	}
	return best
}

func maxEdits(n int) int {
	switch {
	case n <= 4:
		return 1
	case n <= 8:
		return 2
	}
	return 3
}

// Distance is the Levenshtein distance between a and b, counted in runes:
// the fewest insertions, deletions and substitutions turning a into b.
func Distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
