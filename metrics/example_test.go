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
