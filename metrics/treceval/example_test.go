package treceval_test

import (
	"os"
	"strings"

	"github.com/fusiontune/fusiontune/internal/trec"
	"github.com/fusiontune/fusiontune/metrics/treceval"
)

func ExampleEvaluate() {
	qrels, _ := trec.ReadJudgments(strings.NewReader("q1 0 d1 1\nq1 0 d2 0\nq1 0 d3 2\n"), "qrels")
	run, _ := trec.ReadRun(strings.NewReader("q1 Q0 d2 1 9.5 bm25\nq1 Q0 d1 2 7.0 bm25\n"), "run")
	sel, _ := treceval.Select([]string{"num_rel_ret", "map", "P.2"})
	res, _ := treceval.Evaluate(qrels, run, sel, treceval.DefaultOptions())
	res.WriteTREC(os.Stdout, false)
	// Output:
	// num_rel_ret           	all	1
	// map                   	all	0.2500
	// P_2                   	all	0.5000
}
