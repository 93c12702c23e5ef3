package report

import (
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/runs"
	"gonum.org/v1/plot/plotter"
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

// TestCoverageThreshold: coverage is warned about below warn, or, when the
// ceiling records what the golden set can reach, below warn times that
// (per category, times the category's, else the overall's).
func TestCoverageThreshold(t *testing.T) {
	ceiling := &runs.Ceiling{
		Scorecard:  map[string]float64{CoverageMetric: 0.5},
		Categories: map[string]map[string]float64{"nav": {CoverageMetric: 0.25}, "other": {"primary": 1}},
	}
	for _, tc := range []struct {
		name             string
		c                *runs.Ceiling
		want             float64
		wantCat          map[string]float64
		reachable, share string
	}{
		{"no ceiling", nil, 0.8, map[string]float64{"nav": 0.8}, "", ""},
		{"a ceiling without Judged@10", &runs.Ceiling{Scorecard: map[string]float64{"primary": 1}}, 0.8, map[string]float64{"nav": 0.8}, "", ""},
		{"relative to the ceiling", ceiling, 0.4, map[string]float64{"nav": 0.2, "other": 0.4, "missing": 0.4}, "0.5000", "80%"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, perCat, reachable, share := coverageThreshold(tc.c, 0.8)
			if math.Abs(got-tc.want) > 1e-12 || reachable != tc.reachable || share != tc.share {
				t.Errorf("threshold, reachable, share = %v, %q, %q; want %v, %q, %q", got, reachable, share, tc.want, tc.reachable, tc.share)
			}
			for cat, want := range tc.wantCat {
				if x := perCat(cat); math.Abs(x-want) > 1e-12 {
					t.Errorf("category %s: threshold %v, want %v", cat, x, want)
				}
			}
		})
	}
}

// TestFrontSteps: the front is drawn as steps in p95 order, each trial's
// primary held flat until the next trial's p95.
func TestFrontSteps(t *testing.T) {
	for _, tc := range []struct {
		name  string
		front plotter.XYs
		want  plotter.XYs
	}{
		{"one", plotter.XYs{{X: 5, Y: 0.3}}, plotter.XYs{{X: 5, Y: 0.3}}},
		{"sorted by p95", plotter.XYs{{X: 9, Y: 0.5}, {X: 2, Y: 0.3}},
			plotter.XYs{{X: 2, Y: 0.3}, {X: 9, Y: 0.3}, {X: 9, Y: 0.5}}},
		{"three", plotter.XYs{{X: 1, Y: 0.1}, {X: 3, Y: 0.4}, {X: 2, Y: 0.2}},
			plotter.XYs{{X: 1, Y: 0.1}, {X: 2, Y: 0.1}, {X: 2, Y: 0.2}, {X: 3, Y: 0.2}, {X: 3, Y: 0.4}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := frontSteps(tc.front); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("frontSteps = %v, want %v", got, tc.want)
			}
		})
	}
}
