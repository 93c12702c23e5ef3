package harvest

import (
	"slices"
	"testing"

	"github.com/fusiontune/fusiontune/internal/querylog"
)

// TestPositionPriors: impressions and clicks are counted per position over
// every search, only the results shown (the first K) count, and only
// clicks (not other feedback) are clicks.
func TestPositionPriors(t *testing.T) {
	res := func(ids ...string) []querylog.Result {
		var out []querylog.Result
		for _, id := range ids {
			out = append(out, querylog.Result{ID: id})
		}
		return out
	}
	feedback := []querylog.Event{
		{RequestID: "r1", Action: querylog.ActionClick, DocID: "a"},
		{RequestID: "r2", Action: querylog.ActionClick, DocID: "c"},
		{RequestID: "r2", Action: "research", DocID: "b"},
		{RequestID: "r3", Action: querylog.ActionClick, DocID: "z"}, // not shown: the first 2 only
	}
	for _, tc := range []struct {
		name     string
		searches []querylog.Event
		imp, clk []int
	}{
		{"none", nil, nil, nil},
		{"one search, top clicked", []querylog.Event{{RequestID: "r1", Results: res("a", "b")}}, []int{1, 1}, []int{1, 0}},
		{"research is no click", []querylog.Event{{RequestID: "r1", Results: res("a", "b")}, {RequestID: "r2", Results: res("b", "x", "c")}},
			[]int{2, 2, 1}, []int{1, 0, 1}},
		{"only the first K shown", []querylog.Event{{RequestID: "r3", K: 2, Results: res("x", "y", "z")}}, []int{1, 1}, []int{0, 0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			imp, clk := positionPriors(tc.searches, clickedDocs(feedback))
			if !slices.Equal(imp, tc.imp) || !slices.Equal(clk, tc.clk) {
				t.Errorf("impressions %v, clicks %v; want %v, %v", imp, clk, tc.imp, tc.clk)
			}
		})
	}
}
