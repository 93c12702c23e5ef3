package pass

import (
	"errors"
	"testing"

	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner/scoring"
)

// TestFailUnanswered: when the service dies mid-batch, the queries it
// answered keep their results; those that failed, were cut short or never
// sent fail with the death, with their labels and request id.
func TestFailUnanswered(t *testing.T) {
	dead := errors.New("service exited")
	queries := []scoring.Query{
		{ID: "q1", Category: "a", Judgments: map[string]int{"d": 1}},
		{ID: "q2", Category: "b", ExpectedRouting: "lexical"},
		{ID: "q3", Category: "c", Judgments: map[string]int{"d": 1}},
	}
	answered := runs.QueryResult{QueryID: "q1", Primary: 0.5}
	for _, tc := range []struct {
		name       string
		results    []runs.QueryResult
		wantFailed int
		wantKept   []bool
	}{
		{"none sent", make([]runs.QueryResult, 3), 3, []bool{false, false, false}},
		{"first answered", []runs.QueryResult{answered, {}, {}}, 2, []bool{true, false, false}},
		{"an earlier error is replaced", []runs.QueryResult{answered, {QueryID: "q2", Error: "timeout"}, {QueryID: "q3", Primary: 1}}, 1, []bool{true, false, true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			results := append([]runs.QueryResult(nil), tc.results...)
			if got := failUnanswered(results, queries, "run/t1", dead); got != tc.wantFailed {
				t.Errorf("failed = %d, want %d", got, tc.wantFailed)
			}
			for i, r := range results {
				if tc.wantKept[i] {
					if r.Error != "" || r.Primary != tc.results[i].Primary {
						t.Errorf("query %d: %+v, want its answer kept", i, r)
					}
					continue
				}
				q := queries[i]
				if r.QueryID != q.ID || r.Category != q.Category || r.Expected != q.ExpectedRouting ||
					r.RequestID != "run/t1/"+q.ID || r.Unjudged != (len(q.Judgments) == 0) || r.Error != dead.Error() || r.Scores == nil {
					t.Errorf("query %d: %+v, want it failed with %q", i, r, dead)
				}
			}
		})
	}
}
