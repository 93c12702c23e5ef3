package tuner

import (
	"math"
	"slices"
	"testing"

	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner/scoring"
)

// TestNotRun: a rung runs the queries of its subset not run by an earlier
// rung, in the subset's order.
func TestNotRun(t *testing.T) {
	for _, tc := range []struct {
		name   string
		subset []int
		ran    []bool
		want   []int
	}{
		{"first rung runs its subset", []int{3, 0, 2}, make([]bool, 4), []int{3, 0, 2}},
		{"the next rung skips what ran", []int{0, 1, 2, 3}, []bool{true, false, true, false}, []int{1, 3}},
		{"everything ran", []int{2, 1}, []bool{false, true, true}, nil},
		{"empty subset", nil, []bool{false}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := notRun(tc.subset, tc.ran); !slices.Equal(got, tc.want) {
				t.Errorf("notRun = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestScoreRung: a rung's record is the summary of its subset only (the
// results of queries outside it are ignored), counts the subset's failed
// queries with the last one's on_query_error, and says what fraction of
// all queries the subset is.
func TestScoreRung(t *testing.T) {
	queries := []scoring.Query{
		{ID: "q0", Category: "a", Judgments: map[string]int{"d": 1}},
		{ID: "q1", Category: "a", Judgments: map[string]int{"d": 1}},
		{ID: "q2", Category: "b", Judgments: map[string]int{"d": 1}},
		{ID: "q3", Category: "b", Judgments: map[string]int{"d": 1}},
	}
	ok := func(id string, p float64) runs.QueryResult {
		return runs.QueryResult{QueryID: id, Primary: p, Scores: map[string]float64{"ndcg@10": p}}
	}
	failed := func(id, onError string) runs.QueryResult {
		return runs.QueryResult{QueryID: id, Error: "boom", OnError: onError}
	}
	for _, tc := range []struct {
		name         string
		subset       []int
		results      []runs.QueryResult
		wantPrimary  float64
		wantQueries  int
		wantFailed   int
		wantOnError  string
		wantFraction float64
	}{
		{"half the queries", []int{0, 2}, []runs.QueryResult{ok("q0", 1), ok("q1", 0), ok("q2", 0.5), {}}, 0.75, 2, 0, "", 0.5},
		{"all, in subset order", []int{3, 2, 1, 0}, []runs.QueryResult{ok("q0", 1), ok("q1", 0), ok("q2", 0.5), ok("q3", 0.5)}, 0.5, 4, 0, "", 1},
		{"a zeroed failure counts", []int{0, 1}, []runs.QueryResult{ok("q0", 1), failed("q1", scoring.QueryErrorZero), {}, {}}, 0.5, 2, 1, scoring.QueryErrorZero, 0.5},
		{"a skipped failure is not scored", []int{0, 1, 2}, []runs.QueryResult{ok("q0", 1), failed("q1", scoring.QueryErrorSkip), ok("q2", 0), {}}, 0.5, 2, 1, scoring.QueryErrorSkip, 0.75},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var rec trialOutcome
			rec.Failed, rec.OnQueryError = 9, "stale"
			s := scoreRung(&rec, queries, tc.subset, tc.results)
			if math.Abs(rec.Primary-tc.wantPrimary) > 1e-12 || s.Primary != rec.Primary {
				t.Errorf("primary = %v (summary %v), want %v", rec.Primary, s.Primary, tc.wantPrimary)
			}
			if rec.Queries != tc.wantQueries || rec.Failed != tc.wantFailed || rec.OnQueryError != tc.wantOnError {
				t.Errorf("queries, failed, on_query_error = %d, %d, %q; want %d, %d, %q",
					rec.Queries, rec.Failed, rec.OnQueryError, tc.wantQueries, tc.wantFailed, tc.wantOnError)
			}
			if rec.Fraction != tc.wantFraction {
				t.Errorf("fraction = %v, want %v", rec.Fraction, tc.wantFraction)
			}
			if len(rec.results) != len(tc.subset) || rec.results[0].QueryID != queries[tc.subset[0]].ID {
				t.Errorf("results = %v, want the subset's, in its order", rec.results)
			}
		})
	}
}
