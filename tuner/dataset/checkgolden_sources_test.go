package dataset

import "testing"

// TestSourcesNote: tune check names the judgment sources only when some
// judgments are not manual.
func TestSourcesNote(t *testing.T) {
	for _, tc := range []struct {
		counts map[string]int
		want   string
	}{
		{nil, ""},
		{map[string]int{"manual": 40}, ""},
		{map[string]int{"manual": 28, "implicit": 12}, " (manual 28, implicit 12)"},
		{map[string]int{"bootstrapped": 3, "llm": 2}, " (llm 2, bootstrapped 3)"},
	} {
		if got := sourcesNote(tc.counts); got != tc.want {
			t.Errorf("%v: %q, want %q", tc.counts, got, tc.want)
		}
	}
}
