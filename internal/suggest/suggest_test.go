package suggest_test

import (
	"testing"

	"github.com/fusiontune/fusiontune/internal/suggest"
)

func TestDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"a", "", 1}, {"", "abc", 3}, {"kitten", "sitting", 3},
		{"datset", "dataset", 1}, {"leaderbord", "leaderboard", 1}, {"flaw", "lawn", 2}, {"héllo", "hello", 1},
	} {
		if got := suggest.Distance(tc.a, tc.b); got != tc.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}

func TestClosest(t *testing.T) {
	keys := []string{"dataset", "datasets", "dataset_id", "backend", "runs_dir", "eval"}
	for _, tc := range []struct {
		name, word string
		want       string
	}{
		{"one edit", "datset", "dataset"},
		{"case-insensitive", "Backend", "backend"},
		{"exact wins", "datasets", "datasets"},
		{"transposition", "runs_dri", "runs_dir"},
		{"short word, two edits: none", "evl2", ""},
		{"far away: none", "promotion", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := suggest.Closest(tc.word, keys); got != tc.want {
				t.Errorf("Closest(%q) = %q, want %q", tc.word, got, tc.want)
			}
		})
	}
}
