package metrics_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/fusiontune/fusiontune/metrics"
)

// TestScoreGradesEqualsScoreQuery scores random rankings both ways, over
// a scorecard with cutoffs and without (MAP reads the whole ranking).
func TestScoreGradesEqualsScoreQuery(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	cards := map[string][]string{
		"cutoffs": {"NDCG@10", "NDCG@50", "ERR@10", "P@10", "Recall@20", "MRR@10", "Judged@10", "Strong_Precision@20", "Useful_Precision@50", "Avg_Grade@10/3", "Gain_Recall@20"},
		"deep":    {"MAP", "NDCG", "R-Precision", "P@5"},
	}
	for name, list := range cards {
		card, err := metrics.ParseScorecard(name, list)
		if err != nil {
			t.Fatal(err)
		}
		for trial := range 200 {
			j := metrics.Judgments{}
			for d := range 30 {
				if rng.IntN(3) == 0 {
					j[fmt.Sprint("d", d)] = rng.IntN(5) - 1 // -1 .. 3
				}
			}
			q := metrics.NewQuery(j, metrics.DefaultOptions())
			var ranking []string
			var grades []int
			var judged []bool
			for _, d := range rng.Perm(40)[:rng.IntN(40)] {
				id := fmt.Sprint("d", d)
				g, ok := j[id]
				ranking = append(ranking, id)
				grades = append(grades, max(g, 0))
				judged = append(judged, ok)
			}
			want := card.ScoreQuery(nil, ranking, q)
			got := card.ScoreGrades(nil, grades, judged, q)
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("%s trial %d: %s = %v by grades, %v by ids", name, trial, card.Metrics[i], got[i], want[i])
				}
			}
		}
	}
}
