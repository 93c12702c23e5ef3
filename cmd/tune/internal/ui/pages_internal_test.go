package ui

import "testing"

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

// TestSortColumns: the sorted column is marked and its link reverses the
// order; another column's link sorts ascending for rank and name,
// descending for scores; every link keeps the filter and the category
// columns; the primary score's header names its measure.
func TestSortColumns(t *testing.T) {
	cols := sortColumns("r1", []string{"rank", "name", "primary", "delta", "ndcg@10"}, "primary", true, "k 60", true, "default composite")
	want := []column{
		{Key: "rank", Label: "#", Link: "/run/r1?sort=rank&desc=0&filter=k+60&cats=1"},
		{Key: "name", Label: "trial", Link: "/run/r1?sort=name&desc=0&filter=k+60&cats=1"},
		{Key: "primary", Label: "primary (default composite)", Sorted: "▼", Link: "/run/r1?sort=primary&desc=0&filter=k+60&cats=1"},
		{Key: "delta", Label: "Δ primary vs baseline", Link: "/run/r1?sort=delta&desc=1&filter=k+60&cats=1"},
		{Key: "ndcg@10", Label: "ndcg@10", Link: "/run/r1?sort=ndcg@10&desc=1&filter=k+60&cats=1"},
	}
	if len(cols) != len(want) {
		t.Fatalf("%d columns, want %d", len(cols), len(want))
	}
	for i := range want {
		if cols[i] != want[i] {
			t.Errorf("column %d = %+v, want %+v", i, cols[i], want[i])
		}
	}
	if c := sortColumns("r1", []string{"rank"}, "rank", false, "", false, "NDCG@10")[0]; c.Sorted != "▲" || c.Link != "/run/r1?sort=rank&desc=1&filter=&cats=0" {
		t.Errorf("rank sorted ascending: %+v", c)
	}
}
