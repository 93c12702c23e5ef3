package ui

import (
	"slices"
	"testing"

	"github.com/fusiontune/fusiontune/runs"
)

// TestMoved: a fused row says how it moved from its rank under the
// trial's own settings.
func TestMoved(t *testing.T) {
	for _, tc := range []struct {
		was, now int
		want     string
	}{
		{3, 3, ""},
		{0, 2, "new"},
		{5, 2, "↑3"},
		{1, 4, "↓3"},
	} {
		if got := moved(tc.was, tc.now); got != tc.want {
			t.Errorf("moved(%d, %d) = %q, want %q", tc.was, tc.now, got, tc.want)
		}
	}
}

// TestUnjudgedAround: the judge page links the nearest queries with
// unjudged hits on either side, and starts at the first such query.
func TestUnjudgedAround(t *testing.T) {
	order := []string{"q1", "q2", "q3", "q4", "q5"}
	unjudged := map[string]bool{"q1": true, "q3": true, "q5": true}
	for _, tc := range []struct {
		pos        int
		prev, next string
	}{
		{0, "", "q3"},
		{1, "q1", "q3"},
		{2, "q1", "q5"},
		{4, "q3", ""},
	} {
		if prev, next := unjudgedAround(order, unjudged, tc.pos); prev != tc.prev || next != tc.next {
			t.Errorf("at %d: %q, %q; want %q, %q", tc.pos, prev, next, tc.prev, tc.next)
		}
	}
	if got := firstUnjudged(order, map[string]bool{"q4": true, "q2": true}); got != "q2" {
		t.Errorf("firstUnjudged = %q, want q2", got)
	}
	if got := firstUnjudged(order, nil); got != "" {
		t.Errorf("firstUnjudged with none = %q, want \"\"", got)
	}
}

// TestSortColumns: the sorted column is marked (and aria-sort says how)
// and its link reverses the order; another column's link sorts ascending
// for rank, name and parameters, descending for scores; every link keeps
// the rest of the query; a parameter's header is its short name.
func TestSortColumns(t *testing.T) {
	keep := "&filter=k+60&cats=1"
	cols := sortColumns("r1", []string{"rank", "name", "fusion.k", "primary", "delta", "ndcg@10"}, "primary", true, keep, "default composite")
	want := []column{
		{Key: "rank", Label: "#", Title: "rank", Num: true, AriaSort: "none", Link: "/run/r1?sort=rank&desc=0" + keep},
		{Key: "name", Label: "trial", AriaSort: "none", Link: "/run/r1?sort=name&desc=0" + keep},
		{Key: "fusion.k", Label: "k", Title: "fusion.k", Num: true, AriaSort: "none", Link: "/run/r1?sort=fusion.k&desc=0" + keep},
		{Key: "primary", Label: "primary", Title: "primary (default composite)", Num: true, Sorted: "▼", AriaSort: "descending", Link: "/run/r1?sort=primary&desc=0" + keep},
		{Key: "delta", Label: "Δ · sig", Title: "Δ primary vs baseline, and whether it is significant", Num: true, AriaSort: "none", Link: "/run/r1?sort=delta&desc=1" + keep},
		{Key: "ndcg@10", Label: "ndcg@10", Num: true, AriaSort: "none", Link: "/run/r1?sort=ndcg%4010&desc=1" + keep},
	}
	if len(cols) != len(want) {
		t.Fatalf("%d columns, want %d", len(cols), len(want))
	}
	for i := range want {
		if cols[i] != want[i] {
			t.Errorf("column %d = %+v, want %+v", i, cols[i], want[i])
		}
	}
	if c := sortColumns("r1", []string{"rank"}, "rank", false, "", "NDCG@10")[0]; c.Sorted != "▲" || c.AriaSort != "ascending" || c.Link != "/run/r1?sort=rank&desc=1" {
		t.Errorf("rank sorted ascending: %+v", c)
	}
}

// TestSortEntriesPrunedApart: whatever the key, complete trials come
// before pruned ones and pruned before failed ones, even when a pruned
// trial's partial score is the highest.
func TestSortEntriesPrunedApart(t *testing.T) {
	es := []runs.Entry{
		{Rank: 1, Name: "a", Status: runs.StatusOK, Primary: 0.45, Summary: runs.Summary{Scorecard: map[string]float64{"m": 0.1}}, Params: map[string]any{"fusion.k": 20}},
		{Rank: 2, Name: "b", Status: runs.StatusOK, Primary: 0.40, Summary: runs.Summary{Scorecard: map[string]float64{"m": 0.2}}, Params: map[string]any{"fusion.k": 5}},
		{Rank: 3, Name: "p", Status: runs.StatusPruned, Primary: 0.90, Summary: runs.Summary{Scorecard: map[string]float64{"m": 0.9}}, Params: map[string]any{"fusion.k": 1}},
		{Rank: 4, Name: "f", Status: runs.StatusFailed, Params: map[string]any{"fusion.k": 0}},
	}
	for _, tc := range []struct {
		key  string
		desc bool
		want string
	}{
		{"rank", false, "abpf"}, {"rank", true, "bapf"}, {"primary", true, "abpf"}, {"primary", false, "bapf"},
		{"m", true, "bapf"}, {"name", true, "bapf"}, {"fusion.k", false, "bapf"}, {"fusion.k", true, "abpf"},
	} {
		got := slices.Clone(es)
		sortEntries(got, tc.key, tc.desc)
		names := ""
		for _, e := range got {
			names += e.Name
		}
		if names != tc.want {
			t.Errorf("sorted by %s (desc %v): %s, want %s", tc.key, tc.desc, names, tc.want)
		}
	}
}
