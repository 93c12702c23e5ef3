package scoring_test

import (
	"math"
	"slices"
	"testing"

	"github.com/fusiontune/fusiontune/tuner/scoring"

	"github.com/fusiontune/fusiontune/metrics"
	"github.com/fusiontune/fusiontune/runs"
)

func top(docs ...string) []runs.RankedDoc {
	out := make([]runs.RankedDoc, len(docs))
	for i, d := range docs {
		out[i] = runs.RankedDoc{DocID: d, Grade: -1}
	}
	return out
}

func TestScoreRecorded(t *testing.T) {
	sc, err := scoring.NewScorer("P@2", nil, metrics.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	jo := scoring.JudgedOnlyMetrics(sc.Metrics())
	if want := []string{"NDCG@10", "MRR@10", "Recall@20", "P@10", "P@2"}; !slices.Equal(jo, want) {
		t.Fatalf("JudgedOnlyMetrics = %v, want %v (no Judged@10, nothing deeper than the recorded top)", jo, want)
	}
	results := []runs.QueryResult{
		{QueryID: "q1", Top: top("u1", "a", "u2", "b")},    // P@2 1/2; condensed a,b: 1
		{QueryID: "q2", Top: top("c", "u3")},               // P@2 0 (c graded 0); condensed c: 0
		{QueryID: "q3", Top: top("x")},                     // no judgments: left out
		{QueryID: "q4", Error: "timeout", OnError: "zero"}, // counts as 0
		{QueryID: "q5", Error: "timeout"},                  // skipped
	}
	j := scoring.Judgments{"q1": {"a": 1, "b": 1}, "q2": {"c": 0, "d": 1}, "q4": {"a": 1}, "q5": {"a": 1}}
	got := scoring.ScoreRecorded(results, j, sc, []string{"P@2"})
	if got.Queries != 3 {
		t.Errorf("Queries = %d, want 3", got.Queries)
	}
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"primary P@2", got.Primary, 0.5 / 3},
		{"scorecard P@2", got.Scorecard["P@2"], 0.5 / 3},
		{"judged-only P@2", got.JudgedOnly["P@2"], 1.0 / 3},
	} {
		if math.Abs(c.got-c.want) > 1e-12 {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
}
