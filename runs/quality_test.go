package runs_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/runs"
)

// TestQualityRender draws a quality summary with every section (scorecard,
// categories with routing, difficulties, gates, the comparison with a
// reference, failures with texts) in each format, against golden files.
func TestQualityRender(t *testing.T) {
	pa := 0.0123
	q := runs.Quality{
		Run: "20260101T000000Z-abcdef", Trial: "as-is", Backend: "command", Primary: 0.5,
		Metrics: []string{"NDCG@10", "Recall@3"},
		Summary: runs.Summary{Scorecard: map[string]float64{"NDCG@10": 0.61, "Recall@3": 0.8}, Queries: 4, Routing: ptr(0.75),
			Categories:   map[string]map[string]float64{"billing": {"primary": 0.4, "NDCG@10": 0.5, "Recall@3": 0.5}, "howto": {"primary": 0.6, "NDCG@10": 0.72, "Recall@3": 1}},
			Difficulties: map[string]map[string]float64{"easy": {"primary": 0.6, "NDCG@10": 0.7, "Recall@3": 1}}},
		RoutingByCategory: map[string]float64{"billing": 0.5},
		Gates: []runs.GateCheck{{Gate: "Recall@3 >= 0.80", Value: 0.8, Measured: true, Pass: true},
			{Gate: "NDCG@10 >= ref - 0.01 (ref 0.7000: >= 0.6900)", Value: 0.61, Measured: true}},
		Against: &runs.Against{Reference: "baseline golden.baseline.json (run r0)", Metrics: []runs.MetricDelta{
			{Metric: "primary", Reference: 0.55, Current: 0.5, Verdict: "worse", Paired: runs.Comparison{Delta: -0.05, Low: -0.09, High: -0.01, PAdjusted: &pa, Significant: true, Rule: "paired randomization test of the mean, holm over 2 metrics, α = 0.05"}},
			{Metric: "NDCG@10", Reference: 0.7, Current: 0.61, Verdict: "same", Paired: runs.Comparison{Delta: -0.09, Low: -0.2, High: 0.02}},
		}, Categories: []runs.CategoryDelta{{Category: "billing", N: 2, A: 0.5, B: 0.4, Delta: runs.Interval{Mean: -0.1, Low: -0.1, High: -0.1, N: 2, Warning: "2 queries: no interval"}}},
			Warnings: []string{"2 queries: no interval"}},
		FailureCount: 2,
		Failures: []runs.Failure{{QueryID: "q2", Query: "refund | money back", Category: "billing", Reasons: []string{"no result of grade 3 in the top 3", `routing "search", expected "handoff"`},
			Expected: []runs.ExpectedPassage{{DocID: "kb-7", Grade: 3}, {Passage: "refunds take 5 days", Grade: 3}, {Pattern: "doc://refund/.*", Grade: 3}},
			BestRank: 7, Routing: "search", ExpectedRouting: "handoff",
			Top: []runs.RankedDoc{{DocID: "kb-1", Grade: -1, Text: "Our   opening\\nhours"}, {DocID: "kb-2", Grade: 1}}}},
	}
	q.GatesPass = false
	for _, f := range runs.QualityFormats {
		t.Run(f, func(t *testing.T) {
			var b bytes.Buffer
			if err := q.Render(&b, f); err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", "TestQualityRender.golden."+f)
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

// TestReadBaseline: a baseline round-trips; a broken one is refused with
// line:column, another version and unknown fields too.
func TestReadBaseline(t *testing.T) {
	dir := t.TempDir()
	b := runs.NewBaseline("r1", runs.Entry{Name: "as-is", Primary: 0.5, Summary: runs.Summary{Scorecard: map[string]float64{"NDCG@10": 0.6}}}, "h",
		[]runs.QueryResult{{QueryID: "q2", Primary: 0.25, Scores: map[string]float64{"NDCG@10": 0.3}}, {QueryID: "q1", Primary: 0.75, Scores: map[string]float64{"NDCG@10": 0.9}},
			{QueryID: "q3", Unjudged: true}, {QueryID: "q4", Error: "timeout"}})
	data, err := b.Encode()
	if err != nil {
		t.Fatal(err)
	}
	good := filepath.Join(dir, "good.json")
	os.WriteFile(good, data, 0o644)
	got, err := runs.ReadBaseline(good)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Queries) != 2 || got.Queries[0].ID != "q1" || got.Primary != 0.5 {
		t.Errorf("baseline = %+v, want q1 and q2 (scored), sorted", got)
	}
	if v, ok := got.Value("NDCG@10", ""); !ok || v != 0.6 {
		t.Errorf("Value = %v %v", v, ok)
	}
	for _, tc := range []struct{ name, text, want string }{
		{"syntax", "{\n  \"fusiontune_baseline\": 1,\n  \"per_query\": [}\n", "bad.json: 3:"},
		{"version", `{"fusiontune_baseline": 2, "per_query": [{"id": "q"}]}`, "fusiontune_baseline: want 1 (got 2)"},
		{"unknown field", `{"fusiontune_baseline": 1, "extra": true}`, `unknown field "extra"`},
		{"no queries", `{"fusiontune_baseline": 1}`, "per_query: no query scores"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(dir, "bad.json")
			os.WriteFile(p, []byte(tc.text), 0o644)
			if _, err := runs.ReadBaseline(p); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want %q", err, tc.want)
			}
		})
	}
}
