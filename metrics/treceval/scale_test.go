package treceval_test

import (
	"bytes"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/internal/trec"
	"github.com/fusiontune/fusiontune/metrics"
	"github.com/fusiontune/fusiontune/metrics/treceval"
)

// A 0-4 scale at trec_eval's -l 2. Judged a4 b3 c2 d1 e0 f-1 g4; the run
// ranks d c b a e f h (h unjudged). Relevant at -l 2: a b c g, R = 4;
// relevant ranks 2, 3, 4. The expected values follow trec_eval's
// definitions by hand; the metrics package must give the same numbers with
// Threshold 2 for the binary measures, and with the strong threshold at 2
// for the thresholded ones (Recall_Strong, MRR_Strong, Strong_Success).
func TestScale04Level2(t *testing.T) {
	qrels := trec.Qrels{"q": {"a": 4, "b": 3, "c": 2, "d": 1, "e": 0, "f": -1, "g": 4}}
	ranking := []string{"d", "c", "b", "a", "e", "f", "h"}
	run := trec.Run{Tag: "t", Queries: map[string][]trec.Result{"q": nil}}
	for i, id := range ranking {
		run.Queries["q"] = append(run.Queries["q"], trec.Result{DocNo: id, Score: float64(len(ranking) - i)})
	}
	tests := []struct {
		trec    string  // trec_eval measure
		metric  string  // our measure at Threshold 2
		strong  string  // our thresholded measure with Strong 2 ("": none)
		want    float64 // by hand
		display string
	}{
		// c b a in the top 5
		{"P.5", "P@5", "", 3.0 / 5, "0.6000"},
		{"recall.5", "Recall@5", "Recall_Strong@5", 3.0 / 4, "0.7500"},
		{"recall.3", "Recall@3", "Recall_Strong@3", 2.0 / 4, "0.5000"},
		// first relevant at rank 2
		{"recip_rank", "MRR", "MRR_Strong", 0.5, "0.5000"},
		// (1/2 + 2/3 + 3/4) / 4
		{"map", "AP", "", (0.5 + 2.0/3 + 0.75) / 4, "0.4792"},
		// top R = 4: d c b a -> 3 / 4
		{"Rprec", "R-Precision", "", 0.75, "0.7500"},
		{"success.1", "Success@1", "Strong_Success@1", 0, "0.0000"},
		{"success.5", "Success@5", "Strong_Success@5", 1, "1.0000"},
	}
	o := treceval.DefaultOptions()
	o.RelevanceLevel = 2
	mo := metrics.Options{Threshold: 2, MaxGrade: 4}
	so := metrics.Options{Threshold: 1, MaxGrade: 4, Strong: 2}
	judg := metrics.Judgments(qrels["q"])
	for _, tt := range tests {
		t.Run(tt.trec, func(t *testing.T) {
			sel, err := treceval.Select([]string{tt.trec})
			if err != nil {
				t.Fatal(err)
			}
			res, err := treceval.Evaluate(qrels.Judgments(), run, sel, o)
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			if err := res.WriteTREC(&buf, false); err != nil {
				t.Fatal(err)
			}
			f := strings.Split(strings.TrimSpace(buf.String()), "\t")
			if got := f[len(f)-1]; got != tt.display {
				t.Errorf("trec_eval %s -l2 = %s, want %s", tt.trec, got, tt.display)
			}
			if got := metrics.MustParseMetric(tt.metric).Score(ranking, judg, mo); math.Abs(got-tt.want) > 1e-12 {
				t.Errorf("%s at threshold 2 = %v, want %v", tt.metric, got, tt.want)
			}
			if tt.strong != "" {
				if got := metrics.MustParseMetric(tt.strong).Score(ranking, judg, so); math.Abs(got-tt.want) > 1e-12 {
					t.Errorf("%s at strong 2 = %v, want %v", tt.strong, got, tt.want)
				}
			}
			if s := strconv.FormatFloat(tt.want, 'f', 4, 64); s != tt.display {
				t.Errorf("hand value %v displays as %s, want %s", tt.want, s, tt.display)
			}
		})
	}
}
