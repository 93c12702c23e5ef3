package analysis

import (
	"fmt"
	"math"
	"testing"

	"github.com/fusiontune/fusiontune/metrics"
	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner/scoring"
)

// TestResultKeyLineIsFmts: resultKey hashes, per query, the bytes
// fmt.Fprintf(h, "%q %q %q %v", id, routing, error, rounded primary) and
// " %q" per top document gave (keys written before stay equal).
func TestResultKeyLineIsFmts(t *testing.T) {
	top := []runs.RankedDoc{{DocID: "d1"}, {DocID: `quo"te`}, {DocID: "ünï\tcode\x00"}}
	for _, r := range []runs.QueryResult{
		{QueryID: "q1", Routing: "search", Primary: 0.123456789012345, Top: top},
		{QueryID: "q 2", Error: "search: timeout \"x\"", Primary: 0},
		{QueryID: "q3", Routing: "no_results", Primary: 1e-7},
		{QueryID: "q4", Primary: 12345678901234567890},
		{QueryID: "q5", Primary: math.Inf(1)},
		{QueryID: "q6", Primary: math.NaN()},
		{QueryID: "q7", Primary: -0.5, Top: top[:1]},
		{QueryID: "q8", Primary: 1},
	} {
		want := fmt.Sprintf("%q %q %q %v", r.QueryID, r.Routing, r.Error, runs.Round(r.Primary))
		for _, d := range r.Top {
			want += fmt.Sprintf(" %q", d.DocID)
		}
		want += "\n"
		if got := string(resultKeyLine(nil, r)); got != want {
			t.Errorf("query %s: line %q, want %q", r.QueryID, got, want)
		}
	}
}

// TestJudgedOnlyOfIsScoreRecordeds: the judged-only values the
// statistics take without the scorecard are ScoreRecorded's, bit for bit.
func TestJudgedOnlyOfIsScoreRecordeds(t *testing.T) {
	sc, err := scoring.NewScorer("NDCG@10", nil, metrics.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	names := scoring.JudgedOnlyMetrics(sc.Metrics())
	doc := func(ids ...string) []runs.RankedDoc {
		out := make([]runs.RankedDoc, len(ids))
		for i, id := range ids {
			out[i] = runs.RankedDoc{DocID: id, Grade: -1}
		}
		return out
	}
	results := []runs.QueryResult{
		{QueryID: "q1", Top: doc("u1", "a", "u2", "b", "c")},
		{QueryID: "q2", Top: doc("c", "u3", "d")},
		{QueryID: "q3", Top: doc("x")},
		{QueryID: "q4", Error: "timeout", OnError: "zero"},
		{QueryID: "q5", Error: "timeout"},
	}
	j := scoring.Judgments{"q1": {"a": 2, "b": 1, "c": 3}, "q2": {"c": 0, "d": 1}, "q4": {"a": 1}, "q5": {"a": 1}}
	want := scoring.ScoreRecorded(results, j, sc, names).JudgedOnly
	got := scoring.JudgedOnlyOf(results, j, sc, names)
	if len(got) != len(want) || len(want) == 0 {
		t.Fatalf("judged-only values %v, want %v", got, want)
	}
	for m, w := range want {
		if math.Float64bits(got[m]) != math.Float64bits(w) {
			t.Errorf("%s: %v, want %v", m, got[m], w)
		}
	}
}
