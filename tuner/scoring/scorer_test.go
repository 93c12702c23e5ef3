package scoring_test

import (
	"math"
	"slices"
	"testing"

	"github.com/fusiontune/fusiontune/experiments"
	"github.com/fusiontune/fusiontune/tuner/scoring"

	"github.com/fusiontune/fusiontune/metrics"
)

func TestMetricsScorer(t *testing.T) {
	j := map[string]int{"a": 3, "b": 1, "c": 2}
	ranking := []string{"b", "x", "a", "c"}
	for _, tc := range []struct {
		primary string
		want    float64
	}{
		{"default", metrics.DefaultComposite.Score(ranking, j, metrics.DefaultOptions())},
		// MRR@10: first relevant (grade >= 1) at rank 1 -> 1.
		// P@10: 3 relevant in the top 10 -> 3/10 = 0.3.
		// 0.5*1 + 0.5*0.3 = 0.65
		{"0.5*MRR@10+0.5*P@10", 0.65},
	} {
		s, err := scoring.NewScorer(tc.primary, []string{"ERR@5"}, metrics.DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		scores, primary := s.Score(ranking, j)
		if math.Abs(primary-tc.want) > 1e-12 {
			t.Errorf("%s: primary %v, want %v", tc.primary, primary, tc.want)
		}
		if _, ok := scores["ERR@5"]; !ok {
			t.Errorf("%s: extra metric missing from %v", tc.primary, scores)
		}
		if s.Metrics()[0] != "NDCG@10" {
			t.Errorf("metrics order %v", s.Metrics())
		}
	}
	if _, err := scoring.NewScorer("NDCG@ten", nil, metrics.DefaultOptions()); err == nil {
		t.Error("bad primary accepted")
	}
}

// TestBinaryDefault: on the binary scale the default primary is NDCG@10,
// and it is described as such; on the 0-3 scale it stays the composite.
func TestBinaryDefault(t *testing.T) {
	for _, tc := range []struct {
		name  string
		scale experiments.Scale
		desc  string
		terms []string
	}{
		{"binary", experiments.Scale{Max: 1, Relevant: 1, Strong: 1, Exact: 1}, "default for binary judgments: NDCG@10", []string{"NDCG@10"}},
		{"0-3", experiments.DefaultScale(), "default composite: mean of NDCG@20, NDCG@50, ERR@10, Strong_Precision@10, Strong_Precision@20, Useful_Precision@50, Avg_Grade@10/3, Gain_Recall@20",
			[]string{"NDCG@20", "NDCG@50", "ERR@10", "Strong_Precision@10", "Strong_Precision@20", "Useful_Precision@50", "Avg_Grade@10/3", "Gain_Recall@20"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc, err := scoring.NewScorer("default", nil, scoring.ScaleOptions(tc.scale))
			if err != nil {
				t.Fatal(err)
			}
			if got := sc.Describe(); got != tc.desc {
				t.Errorf("Describe %q, want %q", got, tc.desc)
			}
			// The primary of a ranking with the one relevant document
			// second is its NDCG@10 on the binary scale.
			scores, primary := sc.Score([]string{"x", "a"}, map[string]int{"a": 1})
			if tc.name == "binary" && primary != scores["NDCG@10"] {
				t.Errorf("primary %v, want NDCG@10 %v", primary, scores["NDCG@10"])
			}
			for _, m := range tc.terms {
				if _, ok := scores[m]; !ok {
					t.Errorf("scorecard lacks the primary's term %s", m)
				}
			}
		})
	}
}

// TestUnvarying: a measure configured for the scorer that counts grades
// no judgment reaches is named; one the data can move is not.
func TestUnvarying(t *testing.T) {
	for _, tc := range []struct {
		name    string
		primary string
		extra   []string
		scale   experiments.Scale
		highest int
		want    []string
	}{
		{"the composite on a 0-3 scale over binary data", "default", nil, experiments.DefaultScale(), 1, []string{
			"Strong_Precision@10 counts grades >= 2 and no judgment reaches 2: it is 0 for every trial",
			"Strong_Precision@20 counts grades >= 2 and no judgment reaches 2: it is 0 for every trial"}},
		{"the composite on graded data", "default", nil, experiments.DefaultScale(), 3, nil},
		{"an exact measure without exact grades", "Exact_Success@3", []string{"Recall_Strong@10", "NDCG@10"}, experiments.DefaultScale(), 2, []string{
			"Exact_Success@3 counts grades >= 3 and no judgment reaches 3: it is 0 for every trial"}},
		{"the binary default on binary data", "default", nil, experiments.Scale{Max: 1, Relevant: 1, Strong: 1, Exact: 1}, 1, nil},
		{"no judgment at all", "NDCG@10", nil, experiments.DefaultScale(), 0, []string{
			"NDCG@10 counts grades >= 1 and no judgment reaches 1: it is 0 for every trial"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc, err := scoring.NewScorer(tc.primary, tc.extra, scoring.ScaleOptions(tc.scale))
			if err != nil {
				t.Fatal(err)
			}
			if got := sc.Unvarying(tc.highest); !slices.Equal(got, tc.want) {
				t.Errorf("Unvarying(%d) = %q, want %q", tc.highest, got, tc.want)
			}
		})
	}
}
