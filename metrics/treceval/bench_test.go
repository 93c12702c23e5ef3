package treceval_test

import (
	"fmt"
	"testing"

	"github.com/fusiontune/fusiontune/internal/trec"
	"github.com/fusiontune/fusiontune/metrics/treceval"
)

// BenchmarkEvaluate scores 500 queries x 1,000 results with the official
// measures.
func BenchmarkEvaluate(b *testing.B) {
	qrels := trec.Qrels{}
	run := trec.Run{Tag: "bench", Queries: map[string][]trec.Result{}}
	for q := range 500 {
		qid := fmt.Sprintf("q%d", q)
		j := map[string]int{}
		res := make([]trec.Result, 1000)
		for d := range res {
			doc := fmt.Sprintf("D%d", (q*7919+d*104729)%1000003)
			res[d] = trec.Result{DocNo: doc, Score: float64(1000 - d)}
			if d%17 == 0 {
				j[doc] = d % 4
			}
		}
		qrels[qid] = j
		run.Queries[qid] = res
	}
	sel, err := treceval.Select(nil)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := treceval.Evaluate(qrels.Judgments(), run, sel, treceval.DefaultOptions()); err != nil {
			b.Fatal(err)
		}
	}
}
