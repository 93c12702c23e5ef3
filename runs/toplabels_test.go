package runs_test

import (
	"testing"

	"github.com/fusiontune/fusiontune/runs"
)

func TestCountTopLabels(t *testing.T) {
	top := func(grades ...int) []runs.RankedDoc {
		out := make([]runs.RankedDoc, len(grades))
		for i, g := range grades {
			out[i] = runs.RankedDoc{DocID: string(rune('a' + i)), Grade: g}
		}
		return out
	}
	tests := []struct {
		name    string
		results []runs.QueryResult
		want    string // Line, "" for nil
	}{
		{name: "none", want: ""},
		{name: "unjudged and failed queries are left out", results: []runs.QueryResult{
			{Unjudged: true, Top: top(3)}, {Error: "boom"}}, want: ""},
		{name: "relevant, irrelevant and unjudged", results: []runs.QueryResult{
			{Top: top(3, 0, 2, -1, 1)}, {Top: top(0, -1, -1)}, {Top: nil}},
			want: "first 10 results: 2 of 3 queries with no relevant result; labels 3×1 2×1 1×1 0×2 ?×3"},
		{name: "only the first 10 count", results: []runs.QueryResult{
			{Top: top(-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 3)}},
			want: "first 10 results: 1 of 1 queries with no relevant result; labels ?×10"},
		{name: "grades above 9 sort as numbers", results: []runs.QueryResult{
			{Top: top(10, 2)}},
			want: "first 10 results: 0 of 1 queries with no relevant result; labels 10×1 2×1 ?×0"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := runs.CountTopLabels(tc.results)
			if tc.want == "" {
				if got != nil {
					t.Fatalf("CountTopLabels = %+v, want nil", got)
				}
				return
			}
			if got == nil || got.Line() != tc.want {
				t.Fatalf("CountTopLabels(...).Line() = %q, want %q", lineOf(got), tc.want)
			}
		})
	}
}

func lineOf(t *runs.TopLabels) string {
	if t == nil {
		return "<nil>"
	}
	return t.Line()
}
