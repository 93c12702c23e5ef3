package report

import (
	"reflect"
	"testing"

	"github.com/fusiontune/fusiontune/runs"
)

// A comparison's warning is listed beside its trial under the leaderboard,
// so the run's notes at the top do not repeat it; other warnings stay.
func TestRunWarningsSkipsComparisonWarnings(t *testing.T) {
	lb := runs.Leaderboard{
		Trials: []runs.Entry{
			{Name: "a", Comparison: &runs.Comparison{Against: "baseline", Warnings: []string{"too few non-zero pairs: 0 (need 6)"}}},
			{Name: "b"},
		},
		Warnings: []string{
			"a vs baseline: too few non-zero pairs: 0 (need 6)",
			"category tiny has 4 queries: no interval (need 5)",
			"b vs baseline: too few non-zero pairs: 2 (need 6)", // b has no such comparison: kept
		},
	}
	want := []string{"category tiny has 4 queries: no interval (need 5)", "b vs baseline: too few non-zero pairs: 2 (need 6)"}
	if got := runWarnings(lb); !reflect.DeepEqual(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
}
