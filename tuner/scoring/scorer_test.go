package scoring_test

import (
	"math"
	"testing"

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
