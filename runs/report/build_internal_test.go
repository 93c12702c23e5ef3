package report

import (
	"reflect"
	"strings"
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

// TestStatsNotes: the report says which statistics no trial carries and
// what its deltas and bars show instead; nothing when both are there.
func TestStatsNotes(t *testing.T) {
	cmp := &runs.Comparison{Against: "baseline"}
	cats := map[string]runs.Interval{"x": {}}
	for _, tc := range []struct {
		name      string
		trials    []runs.Entry
		wantNote  string
		wantStats bool
	}{
		{"none", []runs.Entry{{Name: "a"}, {Name: "b"}}, "Statistics were not computed for this run", false},
		{"no paired comparison", []runs.Entry{{Name: "a", CategoryIntervals: cats}}, "No paired comparison against the baseline", false},
		{"no category intervals", []runs.Entry{{Name: "a"}, {Name: "b", Comparison: cmp}}, "No category intervals were recorded", true},
		{"both, on different trials", []runs.Entry{{Name: "a", CategoryIntervals: cats}, {Name: "b", Comparison: cmp}}, "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			notes, stats := statsNotes(tc.trials)
			if stats != tc.wantStats {
				t.Errorf("stats = %v, want %v", stats, tc.wantStats)
			}
			if tc.wantNote == "" && len(notes) != 0 || tc.wantNote != "" && (len(notes) != 1 || !strings.HasPrefix(notes[0], tc.wantNote)) {
				t.Errorf("notes = %q, want one starting %q", notes, tc.wantNote)
			}
		})
	}
}
