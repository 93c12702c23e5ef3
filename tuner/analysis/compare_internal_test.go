package analysis

import (
	"slices"
	"testing"

	"github.com/fusiontune/fusiontune/runs"
)

// TestCompareWarnings: a comparison warns about queries only one trial
// recorded (counting those both did), then repeats each category delta's
// warning in category order; nothing to say is no warning at all.
func TestCompareWarnings(t *testing.T) {
	qs := func(ids ...string) []runs.QueryResult {
		var out []runs.QueryResult
		for _, id := range ids {
			out = append(out, runs.QueryResult{QueryID: id})
		}
		return out
	}
	cat := func(name, warning string) runs.CategoryDelta {
		return runs.CategoryDelta{Category: name, Delta: runs.Interval{Warning: warning}}
	}
	for _, tc := range []struct {
		name   string
		ra, rb []runs.QueryResult
		cats   []runs.CategoryDelta
		want   []string
	}{
		{"same queries, no caveat", qs("q1", "q2"), qs("q2", "q1"), []runs.CategoryDelta{cat("a", "")}, nil},
		{"one only in A", qs("q1", "q2", "q3"), qs("q1", "q2"), nil,
			[]string{"the trials recorded different queries (1 only in A, 0 only in B): compared on the 2 both recorded"}},
		{"only in each", qs("q1", "q2"), qs("q2", "q3", "q4"), nil,
			[]string{"the trials recorded different queries (1 only in A, 2 only in B): compared on the 1 both recorded"}},
		{"category warnings in order", qs("q1"), qs("q1"),
			[]runs.CategoryDelta{cat("a", "4 queries: no interval"), cat("b", ""), cat("c", "2 queries: no interval")},
			[]string{"4 queries: no interval", "2 queries: no interval"}},
		{"queries first, then categories", qs("q1"), qs("q1", "q2"), []runs.CategoryDelta{cat("a", "3 queries: no interval")},
			[]string{"the trials recorded different queries (0 only in A, 1 only in B): compared on the 1 both recorded", "3 queries: no interval"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := compareWarnings(tc.ra, tc.rb, tc.cats)
			if !slices.Equal(got, tc.want) || (got == nil) != (tc.want == nil) {
				t.Errorf("compareWarnings = %q, want %q", got, tc.want)
			}
		})
	}
}
