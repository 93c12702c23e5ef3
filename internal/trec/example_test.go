package trec_test

import (
	"fmt"
	"os"
	"strings"

	"github.com/fusiontune/fusiontune/internal/trec"
)

func ExampleWriteRun() {
	run := trec.Run{Tag: "hybrid", Queries: map[string][]trec.Result{
		"q1": {{DocNo: "d7", Score: 0.91}, {DocNo: "d2", Score: 0.5}},
	}}
	trec.WriteRun(os.Stdout, run)
	// Output:
	// q1 Q0 d7 1 0.91 hybrid
	// q1 Q0 d2 2 0.5 hybrid
}

func ExampleReadQrels() {
	_, err := trec.ReadQrels(strings.NewReader("q1 0 d1 2\nq1 0 d2 high\n"), "golden.qrels")
	fmt.Println(err)
	// Output:
	// golden.qrels:2: relevance must be an integer (got "high")
}
