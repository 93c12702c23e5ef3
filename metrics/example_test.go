package metrics_test

import (
	"fmt"

	"github.com/fusiontune/fusiontune/metrics"
)

func ExampleScorecard() {
	ranking := []string{"d3", "d1", "d7"}
	judged := metrics.Judgments{"d1": 3, "d2": 2, "d3": 0}
	sc, err := metrics.ParseScorecard("quick", []string{"P@3", "MRR@10", "NDCG@3"})
	if err != nil {
		panic(err)
	}
	scores := sc.Score(ranking, judged, metrics.DefaultOptions())
	for _, name := range sc.Names() {
		fmt.Printf("%s %.4f\n", name, scores[name])
	}
	// Output:
	// P@3 0.3333
	// MRR@10 0.5000
	// NDCG@3 0.4441
}

func ExampleSummarizer() {
	sm := metrics.NewSummarizer([]string{"NDCG@10", "P@5"})
	sm.Add(metrics.QueryLabels{Category: "howto", Judged: true, Routed: true}, []float64{0.9, 0.6}, nil, 0.8, true)
	sm.Add(metrics.QueryLabels{Category: "facts", Judged: true, Routed: true}, []float64{0.5, 0.2}, nil, 0.4, false)
	sm.Add(metrics.QueryLabels{Routed: true}, nil, nil, 0, true) // unjudged: routing only
	s := sm.Summary()
	fmt.Printf("primary %.2f over %d queries, NDCG@10 %.2f, howto %.2f, routing %.2f\n",
		s.Primary, s.Scored, s.Scorecard["NDCG@10"], s.Categories["howto"]["primary"], *s.Routing)
	// Output:
	// primary 0.60 over 2 queries, NDCG@10 0.70, howto 0.80, routing 0.67
}
