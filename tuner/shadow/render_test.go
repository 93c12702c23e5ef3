package shadow_test

import (
	"bytes"
	"flag"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/fusiontune/fusiontune/metrics/stats"
	"github.com/fusiontune/fusiontune/tuner/shadow"
)

var update = flag.Bool("update", false, "rewrite testdata golden files")

func ptr(v float64) *float64 { return &v }

// TestReportRender writes a report with every part (the diff classes,
// latency of a logged control, the judged metric with its sequential
// path, the queries that changed most, an undefined tau) and one with
// none of the optional parts, one of a success-type metric with
// McNemar's test and the compared lists, as text and JSON, against golden files.
func TestReportRender(t *testing.T) {
	full := &shadow.Report{Control: "log", Treatment: "candidate.yaml", K: 10, MeanTau: 0.4213, MeanJaccard: 0.7, Top1Changed: 0.25,
		Counts:           map[string]int{shadow.Identical: 2, shadow.Minor: 1, shadow.Major: 1},
		ControlLatency:   &shadow.Latency{P50: 3.5, P95: 9.25, P99: 12, N: 4},
		TreatmentLatency: &shadow.Latency{P50: 2.5, P95: 7, P99: 8.125, N: 4},
		Metric: &shadow.MetricDiff{Name: "NDCG@10", N: 3, Control: 0.5, Treated: 0.6,
			Bootstrap:  stats.Interval{Mean: 0.1, Low: -0.05, High: 0.25, Level: 0.95, N: 3},
			Sequential: stats.SPRTResult{Upper: 2.773, Lower: -1.558, Better: []float64{0.5, 1, 1.5}, Worse: []float64{-0.5, -1, -1.5}, N: 3, Decision: "undecided"}},
		Queries: []shadow.QueryDiff{
			{ID: "q1", Text: "opening hours", Class: shadow.Identical, Tau: 1, Jaccard: 1, Control: ptr(0.5), Treatment: ptr(0.5)},
			{ID: "q2", Text: "refund <policy> & more", Class: shadow.Major, Tau: math.NaN(), Jaccard: 0.2, Top1Changed: true},
			{ID: "q3", Text: "reset password", Class: shadow.Minor, Tau: 0.5, Jaccard: 1, Control: ptr(0.4), Treatment: ptr(0.7)},
			{ID: "q4", Text: "contact", Class: shadow.Identical, Tau: 1, Jaccard: 1},
		}}
	success := &shadow.Report{Control: "production", Treatment: "run:r1:k=5", K: 10, MeanTau: 0.5, MeanJaccard: 0.8,
		Counts: map[string]int{shadow.Identical: 1, shadow.Minor: 1, shadow.Major: 0},
		Metric: &shadow.MetricDiff{Name: "Success@1", N: 2, Control: 1, Treated: 0.5,
			Bootstrap:  stats.Interval{Mean: -0.5, Low: -1, High: 0, Level: 0.95, N: 2},
			Sequential: stats.SPRTResult{Upper: 2.773, Lower: -1.558, Better: []float64{-1, -2}, Worse: []float64{1, 2}, N: 2, Decision: "worse"},
			PSuperior:  0.1, Binary: &stats.Binary{Wins: 0, Losses: 1, Ties: 1, ExactP: 1, ChiSquareP: 1, PSuperior: 0.25}},
		Queries: []shadow.QueryDiff{
			{ID: "q1", Text: "boiler", Class: shadow.Identical, Tau: 1, Jaccard: 1, Control: ptr(1), Treatment: ptr(1), ControlIDs: []string{"a", "b"}, TreatmentIDs: []string{"a", "b"}},
			{ID: "q2", Text: "thermostat", Class: shadow.Minor, Tau: 0, Jaccard: 0.6, Control: ptr(1), Treatment: ptr(0), ControlIDs: []string{"c", "d"}, TreatmentIDs: []string{"d", "c"}},
		}}
	bare := &shadow.Report{Control: "a.yaml", Treatment: "b.yaml", K: 3, MeanTau: math.NaN(),
		Counts: map[string]int{shadow.Identical: 0, shadow.Minor: 0, shadow.Major: 0}}
	for _, tc := range []struct {
		name string
		r    *shadow.Report
	}{{"TestReportRender", full}, {"TestReportRenderBare", bare}, {"TestReportRenderMcNemar", success}} {
		for _, format := range []string{"text", "json"} {
			t.Run(tc.name+"/"+format, func(t *testing.T) {
				var b bytes.Buffer
				if err := tc.r.Render(&b, format); err != nil {
					t.Fatal(err)
				}
				golden := filepath.Join("testdata", tc.name+".golden."+format)
				if *update {
					if err := os.WriteFile(golden, b.Bytes(), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				want, err := os.ReadFile(golden)
				if err != nil {
					t.Fatal(err)
				}
				if b.String() != string(want) {
					t.Errorf("differs from %s (rerun with -update to accept):\n%s", golden, b.String())
				}
			})
		}
	}
	if err := full.Render(&bytes.Buffer{}, "md"); err == nil || err.Error() != `shadow: unknown format "md" (want one of text, json)` {
		t.Errorf("format md: %v", err)
	}
}
