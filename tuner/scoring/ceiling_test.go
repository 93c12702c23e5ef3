package scoring_test

import (
	"math"
	"slices"
	"testing"

	"github.com/fusiontune/fusiontune/tuner/scoring"

	"github.com/fusiontune/fusiontune/metrics"
)

func TestIdealRanking(t *testing.T) {
	got := scoring.IdealRanking(map[string]int{"c": 1, "a": 3, "b": 1, "z": 0, "y": 3})
	if want := []string{"a", "y", "b", "c", "z"}; !slices.Equal(got, want) {
		t.Errorf("ideal ranking %v, want %v", got, want)
	}
}

// The ceiling scores the ideal ranking with the run's scorer: with one to
// three judged documents a query, P@10 and Judged@10 cannot pass 0.3
// whatever a trial does, while NDCG@10 reaches 1.
func TestCeiling(t *testing.T) {
	queries := []scoring.Query{
		{ID: "q1", Category: "a", Judgments: map[string]int{"d1": 3, "d2": 1, "d3": 0}},
		{ID: "q2", Category: "b", Judgments: map[string]int{"d4": 2}},
		{ID: "q3", ExpectedRouting: "no_results"}, // unjudged: left out, as for a trial
	}
	sc, err := scoring.NewScorer("P@10", nil, metrics.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	c := scoring.Ceiling(queries, sc)
	want := map[string]float64{
		"P@10":      (0.2 + 0.1) / 2, // d1 d2 relevant; d4
		"Judged@10": (0.3 + 0.1) / 2, // min(10, judged)/10: the reachable coverage
		"NDCG@10":   1,
		"Recall@20": 1,
		"MRR@10":    1,
	}
	for m, v := range want {
		if math.Abs(c.Scorecard[m]-v) > 1e-12 {
			t.Errorf("ceiling %s = %v, want %v", m, c.Scorecard[m], v)
		}
	}
	if math.Abs(c.Primary-0.15) > 1e-12 {
		t.Errorf("ceiling primary %v, want 0.15", c.Primary)
	}
	if v := c.Categories["a"]["primary"]; math.Abs(v-0.2) > 1e-12 {
		t.Errorf("ceiling of category a = %v, want 0.2", v)
	}
	// The default composite cannot reach 1 with so few judgments.
	def, err := scoring.NewScorer("default", nil, metrics.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if p := scoring.Ceiling(queries, def).Primary; !(p > 0.3 && p < 0.9) {
		t.Errorf("default composite ceiling %v: want well below 1", p)
	}
}
