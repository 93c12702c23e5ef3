package runs

import (
	"fmt"
	"reflect"
	"testing"
)

func TestShownWarnings(t *testing.T) {
	few := func(trial string, n int) string {
		return fmt.Sprintf("%s vs baseline: too few non-zero pairs: %d (need 6)", trial, n)
	}
	tests := []struct {
		name string
		in   []string
		want []string
	}{
		{"none", nil, nil},
		{"three stay one per line",
			[]string{few("a", 1), "category x has 3 queries: no interval (need 5)", few("b", 0), few("c", 1)},
			[]string{few("a", 1), "category x has 3 queries: no interval (need 5)", few("b", 0), few("c", 1)}},
		{"four fold into one at the first's place",
			[]string{"first", few("a", 1), few("b", 0), "middle", few("c", 1), few("d", 1), "last"},
			[]string{"first", "4 trials vs baseline: too few non-zero pairs to test (0–1 each, need 6): a, b and 2 more", "middle", "last"}},
		{"one count",
			[]string{few("a", 0), few("b", 0), few("c", 0), few("d", 0), few("e", 0)},
			[]string{"5 trials vs baseline: too few non-zero pairs to test (0 each, need 6): a, b and 3 more"}},
		{"references apart",
			[]string{few("a", 1), few("b", 1), few("c", 1), few("d", 1), "x vs bm25: too few non-zero pairs: 2 (need 6)"},
			[]string{"4 trials vs baseline: too few non-zero pairs to test (1 each, need 6): a, b and 2 more", "x vs bm25: too few non-zero pairs: 2 (need 6)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Leaderboard{Warnings: tt.in}.shownWarnings()
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
}
