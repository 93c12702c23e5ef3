package runs_test

import (
	"io"
	"testing"

	"github.com/fusiontune/fusiontune/runs"
)

// TestParetoRender draws the Pareto view (a repeated finalist with its
// p95 range, a sweep-measured trial without throughput, an excluded one,
// constraints and their winner) in every format, against golden files.
func TestParetoRender(t *testing.T) {
	lb := runs.NewLeaderboard("mean of NDCG@10, ERR@10", []string{"NDCG@10", "ERR@10"}, fixtureTrials())
	l := runs.Latency{Note: "client-side", Concurrency: 4, Trials: []runs.TrialLatency{
		{Index: 3, Name: "a-tie", Primary: 0.525, Repeats: []runs.LatencyStats{{P95MS: 11}, {P95MS: 13}, {P95MS: 12}},
			Median: &runs.LatencyStats{Queries: 10, P50MS: 5.25, P95MS: 12, P99MS: 20.5, QPS: 310.4},
			Spread: &runs.LatencySpread{P95MinMS: 11, P95MaxMS: 13, QPSMin: 300, QPSMax: 320}},
		{Index: 1, Name: "k=40", Primary: 0.525, Sweep: &runs.LatencyStats{Queries: 10, P50MS: 4, P95MS: 30.25, P99MS: 41}, Excluded: true},
		{Index: 0, Name: "baseline", Primary: 0.5, Sweep: &runs.LatencyStats{Queries: 10, P50MS: 3, P95MS: 9.5, P99MS: 10}},
	}, Pareto: []runs.ParetoPoint{{Index: 0, Name: "baseline", Primary: 0.5, P95MS: 9.5}, {Index: 3, Name: "a-tie", Primary: 0.525, P95MS: 12}},
		Constraints: []string{"latency.p95 <= 25ms"}, Winner: "a-tie"}
	checkGolden(t, "TestParetoRender", lb.Pareto(l).Render)
	l.Constraints, l.Winner, l.Pareto = nil, "", nil
	checkGolden(t, "TestParetoRenderNoFront", lb.Pareto(l).Render)
}

// TestWriteListRender lists runs in every format, against golden files:
// a missing value is a dash in text and Markdown, empty in CSV, left out
// in JSON; "|" is escaped in Markdown, commas and quotes quoted in CSV,
// and JSON keeps encoding/json's HTML escaping.
func TestWriteListRender(t *testing.T) {
	best := 0.51234
	rows := []runs.ListRow{
		{Run: "20261124-a", Status: "done", Trials: 3, Experiment: `short "list", v2`, Gates: "FAIL 1/2", Best: &best, Measure: "default composite (dev split)", BestTrial: "w=bm25:0.6|rrf"},
		{Run: "20261124-b", Status: "running", Trials: 1},
		{Run: "20261124-c", Status: "failed", Trials: 12, Experiment: "a<b>&c", Gates: "pass", Best: &best, Measure: "NDCG@10", BestTrial: "k=60"},
	}
	checkGolden(t, "TestWriteListRender", func(w io.Writer, f string) error { return runs.WriteList(w, f, rows) })
	checkGolden(t, "TestWriteListRenderEmpty", func(w io.Writer, f string) error { return runs.WriteList(w, f, []runs.ListRow{}) })
}

// TestCompareRender draws a trial comparison (paired comparisons with and
// without secondary tests, a category without interval, the ranking
// diff, changed queries with "|" in a cell, warnings) in each of its
// formats, against golden files.
func TestCompareRender(t *testing.T) {
	pa, w, pw, pg := 0.0123, 194.0, 0.09175, 0.04588
	c := runs.TrialComparison{
		A: runs.TrialRef{Run: "r1", Trial: "baseline", Primary: 0.4641, Queries: 24},
		B: runs.TrialRef{Run: "r2", Trial: "w=bm25:0.6", Primary: 0.5259, Queries: 24},
		Paired: []runs.Comparison{
			{Metric: "primary", N: 23, NonZero: 22, Delta: 0.0618, Low: -0.0006, High: 0.1249, Level: 0.95, P: 0.05229, PAdjusted: &pa,
				Rule: "paired randomization test of the mean", Seed: 7, Secondary: &runs.Secondary{W: &w, PWilcoxon: &pw, PGreater: &pg}},
			{Metric: "NDCG@10", N: 23, NonZero: 3, Delta: -0.00001, Low: -0.000001, High: 0.2, Level: 0.99808, P: 0.5, Mark: "+",
				Rule: "paired randomization test of the mean", Seed: 8, Warnings: []string{"too few non-zero pairs"}},
		},
		Categories: []runs.CategoryDelta{
			{Category: "direct", N: 10, A: 0.3999, B: 0.4924, Delta: runs.Interval{Mean: 0.0925, Low: -0.0006, High: 0.1835, N: 10}},
			{Category: "rare | odd", N: 3, A: 0.4777, B: 0.5937, Delta: runs.Interval{Mean: 0.116, Low: 0.116, High: 0.116, N: 3, Warning: "3 queries"}},
		},
		Diff: runs.RankingDiff{Queries: 24, KendallTau: -0.47, JaccardK: 10, Jaccard: 0.2335, Top1Changed: 1, Top1ChangedN: 24},
		Changed: []runs.QueryChange{
			{QueryID: "q04", Category: "direct", A: 0.304, B: 0.637, Delta: 0.333,
				TopA: []runs.RankedDoc{{DocID: "d03", Grade: -1}, {DocID: "d05", Grade: 2}, {DocID: "d04", Grade: 1}, {DocID: "d09", Grade: 0}},
				TopB: []runs.RankedDoc{{DocID: "d|06", Grade: -1}}},
			{QueryID: "q21", A: 0.354, B: 0.354},
		},
		Warnings: []string{"category rare has 3 queries: no interval (need 5)"},
	}
	checkGoldenFormats(t, "TestCompareRender", runs.CompareFormats, c.Render)
	checkGoldenFormats(t, "TestCompareRenderEmpty", runs.CompareFormats, runs.TrialComparison{}.Render)
}
