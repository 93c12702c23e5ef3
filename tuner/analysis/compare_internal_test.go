package analysis

import (
	"slices"
	"strings"
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

// TestBinaryComparison: a metric whose per-query values are all 0 or 1
// gets McNemar's test (B's values first: B passes 3 queries A fails, A
// passes 1 that B fails), any other none.
func TestBinaryComparison(t *testing.T) {
	b := []float64{1, 1, 1, 0, 1, 0}
	a := []float64{0, 0, 0, 1, 1, 0}
	got, ok := binaryComparison(b, a, "Success@10")
	if !ok {
		t.Fatal("0/1 values: no McNemar test")
	}
	want := runs.BinaryComparison{Metric: "Success@10", BWins: 3, AWins: 1, Ties: 2, PExact: 0.625, ChiSquare: 0.25,
		PChiSquare: runs.Round(0.6170750774519738), PSuperior: 0.8125}
	if got != want {
		t.Errorf("binaryComparison = %+v, want %+v", got, want)
	}
	if _, ok := binaryComparison([]float64{1, 0.5}, []float64{0, 1}, "NDCG@10"); ok {
		t.Error("a 0.5 value: want no McNemar test")
	}
	var out strings.Builder
	c := runs.TrialComparison{Binary: []runs.BinaryComparison{got}}
	if err := c.Render(&out, "text"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "Success-type metrics (McNemar, B vs A)") || !strings.Contains(out.String(), "Success@10  3       1       2     0.625") {
		t.Errorf("render:\n%s", out.String())
	}
}
