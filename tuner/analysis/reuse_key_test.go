package analysis

import (
	"encoding/binary"
	"fmt"
	"math"
	"testing"

	"github.com/fusiontune/fusiontune/metrics"
	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner/scoring"
)

// TestResultKeyLine: resultKey hashes, per query, the quoted id, routing
// and error, the eight bytes of the primary as the leaderboard rounds it,
// and the quoted top documents; scores the leaderboard writes alike give
// the same line, scores it writes apart different lines.
func TestResultKeyLine(t *testing.T) {
	top := []runs.RankedDoc{{DocID: "d1"}, {DocID: `quo"te`}, {DocID: "ünï\tcode\x00"}}
	bits := func(v float64) string {
		return string(binary.LittleEndian.AppendUint64(nil, math.Float64bits(v)))
	}
	for _, tt := range []struct {
		r       runs.QueryResult
		primary float64 // as the line holds it
	}{
		{runs.QueryResult{QueryID: "q1", Routing: "search", Primary: 0.123456789012345, Top: top}, 0.123456789012},
		{runs.QueryResult{QueryID: "q 2", Error: "search: timeout \"x\"", Primary: 0}, 0},
		{runs.QueryResult{QueryID: "q3", Routing: "no_results", Primary: 1e-7}, 1e-7},
		{runs.QueryResult{QueryID: "q4", Primary: 12345678901234567890}, 12345678901234567890},
		{runs.QueryResult{QueryID: "q5", Primary: math.Inf(1)}, 0},
		{runs.QueryResult{QueryID: "q6", Primary: math.NaN()}, 0},
		{runs.QueryResult{QueryID: "q7", Primary: -0.5, Top: top[:1]}, -0.5},
		{runs.QueryResult{QueryID: "q8", Primary: math.Copysign(0, -1)}, 0},
	} {
		r := tt.r
		want := fmt.Sprintf("%q %q %q ", r.QueryID, r.Routing, r.Error) + bits(tt.primary)
		for _, d := range r.Top {
			want += fmt.Sprintf(" %q", d.DocID)
		}
		want += "\n"
		if got := string(resultKeyLine(nil, r)); got != want {
			t.Errorf("query %s: line %q, want %q", r.QueryID, got, want)
		}
	}
	// Scores apart by less than the leaderboard's rounding share a line.
	a := runs.QueryResult{QueryID: "q", Primary: 0.5}
	b := runs.QueryResult{QueryID: "q", Primary: 0.5 + 1e-14}
	c := runs.QueryResult{QueryID: "q", Primary: 0.5 + 1e-9}
	if string(resultKeyLine(nil, a)) != string(resultKeyLine(nil, b)) {
		t.Error("0.5 and 0.5+1e-14 have different lines: the leaderboard writes them alike")
	}
	if string(resultKeyLine(nil, a)) == string(resultKeyLine(nil, c)) {
		t.Error("0.5 and 0.5+1e-9 share a line: the leaderboard writes them apart")
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
