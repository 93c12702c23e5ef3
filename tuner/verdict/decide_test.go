package verdict_test

import (
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner/verdict"
)

// cmp is a comparison with the baseline: delta in [low, high], significant
// when the interval excludes 0, over 27 trials (Holm).
func cmp(delta, low, high float64) *runs.Comparison {
	p := 0.2
	sig := low > 0 || high < 0
	if sig {
		p = 0.001
	}
	adj := p * 27
	return &runs.Comparison{Against: "baseline", Metric: "primary", N: 300, Delta: delta, Low: low, High: high, Level: 0.998,
		P: p, PAdjusted: &adj, Correction: "holm", Family: 27, Significant: sig}
}

func entry(name string, primary float64, params map[string]any, c *runs.Comparison) runs.Entry {
	return runs.Entry{Name: name, Primary: primary, Status: runs.StatusOK, Params: params, Comparison: c}
}

var (
	hybrid   = map[string]any{"fusion.method": "rrf", "fusion.k": 20.0, "fusion.weights.bm25": 0.3, "fusion.weights.dense": 0.7}
	bm25Only = map[string]any{"retrievers": []any{"bm25"}}
	dense    = map[string]any{"retrievers": []any{"dense"}}
	tinyBM25 = map[string]any{"fusion.method": "rrf", "fusion.weights.bm25": 0.0063, "fusion.weights.dense": 1.0}
	base     = entry("baseline", 0.70, map[string]any{"fusion.method": "rrf", "fusion.k": 60.0}, nil)
	power    = &runs.Power{Trial: "x", Against: "baseline", N: 300, SD: 0.05, Alpha: 0.05, Family: 27, Power: 0.8, MDE: 0.012}
)

func TestDecide(t *testing.T) {
	tests := []struct {
		name     string
		lb       runs.Leaderboard
		kind     string
		trial    string
		contains []string
	}{
		{
			name: "a hybrid significantly better is shipped",
			lb: runs.Leaderboard{Primary: "default for binary judgments: NDCG@10", Baseline: "baseline", Power: power,
				Trials: []runs.Entry{entry("k=20", 0.73, hybrid, cmp(0.03, 0.01, 0.05)), base}},
			kind: runs.VerdictShip, trial: "k=20",
			contains: []string{`ship "k=20": NDCG@10 +0.0300 [+0.0100, +0.0500] over the baseline "baseline", significant (99.8% interval, p = 0.001 holm-adjusted over 27 trials)`},
		},
		{
			name: "a gain that is not significant keeps the baseline and says what would settle it",
			lb: runs.Leaderboard{Primary: "default composite: mean of NDCG@20, …", Baseline: "baseline", Power: power,
				Trials: []runs.Entry{entry("k=20", 0.704, hybrid, cmp(0.004, -0.003, 0.011)), base}},
			kind: runs.VerdictKeep, trial: "baseline",
			contains: []string{`keep the baseline "baseline": the best trial "k=20" is primary +0.0040 [-0.0030, +0.0110], not significant`,
				"would take about", "judged queries to detect (tune plan)"},
		},
		{
			name: "no trial above the baseline",
			lb: runs.Leaderboard{Primary: "NDCG@10", Baseline: "baseline",
				Trials: []runs.Entry{base, entry("k=20", 0.69, hybrid, cmp(-0.01, -0.02, 0.0))}},
			kind: runs.VerdictKeep, trial: "baseline",
			contains: []string{`keep the baseline "baseline": no trial scores higher on NDCG@10 (the next best, "k=20", is -0.0100)`},
		},
		{
			name: "dense alone wins",
			lb: runs.Leaderboard{Primary: "NDCG@10", Baseline: "baseline",
				Trials: []runs.Entry{entry("dense only", 0.7571, dense, cmp(0.057, 0.03, 0.08)), entry("k=20", 0.72, hybrid, cmp(0.02, 0.0, 0.04)), base}},
			kind: runs.VerdictSingle, trial: "dense only",
			contains: []string{`dense alone is best: ship "dense only"`, "no hybrid beats it"},
		},
		{
			name: "a hybrid whose BM25 weight is negligible",
			lb: runs.Leaderboard{Primary: "NDCG@10", Baseline: "baseline",
				Trials: []runs.Entry{entry("tpe-021", 0.7575, tinyBM25, cmp(0.0575, 0.03, 0.08)), entry("dense only", 0.7571, dense, cmp(0.057, 0.03, 0.08)), base}},
			kind: runs.VerdictSingle, trial: "tpe-021",
			contains: []string{`dense alone is effectively best: ship "tpe-021"`, "leaves the other retrievers 0.6% of the fusion weight", `"dense only", dense alone, scores 0.7571`},
		},
		{
			name: "bm25 alone wins but not significantly",
			lb: runs.Leaderboard{Primary: "NDCG@10", Baseline: "baseline", Power: power,
				Trials: []runs.Entry{entry("bm25 only", 0.705, bm25Only, cmp(0.005, -0.01, 0.02)), base}},
			kind: runs.VerdictKeep, trial: "baseline",
			contains: []string{`keep the baseline "baseline": the best trial "bm25 only" is NDCG@10 +0.0050`},
		},
		{
			name: "the held-out confirmation decides after a dev split",
			lb: runs.Leaderboard{Primary: "NDCG@10", Baseline: "baseline",
				HeldOut: &runs.HeldOut{Trial: "k=20", Confirmation: &runs.Comparison{Against: "baseline", N: 150, Delta: 0.001, Low: -0.01, High: 0.012,
					Level: 0.95, P: 0.6, PAdjusted: new(float64), Family: 1}, Kept: new(float64)},
				Trials: []runs.Entry{entry("k=20", 0.73, hybrid, cmp(0.03, 0.01, 0.05)), base}},
			kind: runs.VerdictKeep, trial: "baseline",
			contains: []string{`the best trial "k=20" is NDCG@10 +0.0010 [-0.0100, +0.0120] on the held-out queries, not significant`, "one pre-planned comparison on the held-out queries"},
		},
		{
			name:     "no baseline",
			lb:       runs.Leaderboard{Primary: "NDCG@10", Trials: []runs.Entry{entry("k=20", 0.73, hybrid, nil)}},
			kind:     runs.VerdictNone,
			contains: []string{`no verdict: the run has no baseline to compare with; the best trial is "k=20" (NDCG@10 0.7300)`},
		},
		{
			name: "no trial succeeded",
			lb:   runs.Leaderboard{Primary: "NDCG@10", Trials: []runs.Entry{{Name: "k=20", Status: runs.StatusFailed}}},
			kind: runs.VerdictNone, contains: []string{"no verdict: no trial succeeded"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v := verdict.Decide(tc.lb)
			if v.Kind != tc.kind || v.Trial != tc.trial {
				t.Errorf("verdict %s %q, want %s %q: %s", v.Kind, v.Trial, tc.kind, tc.trial, v.Line)
			}
			for _, want := range tc.contains {
				if !strings.Contains(v.Line, want) {
					t.Errorf("verdict line lacks %q:\n%s", want, v.Line)
				}
			}
		})
	}
}

func TestForComparison(t *testing.T) {
	side := func(run, trial string) runs.TrialRef { return runs.TrialRef{Run: run, Trial: trial} }
	for _, tc := range []struct {
		name string
		p    *runs.Comparison
		kind string
		want string
	}{
		{"B better", cmp(0.02, 0.01, 0.03), runs.VerdictShip, "ship B (r2:t2): B - A = +0.0200 [+0.0100, +0.0300] on the primary score, significant"},
		{"B worse", cmp(-0.02, -0.03, -0.01), runs.VerdictKeep, "keep A (r1:t1): B - A = -0.0200 [-0.0300, -0.0100] on the primary score, B is significantly worse"},
		{"no difference", cmp(0.004, -0.003, 0.011), runs.VerdictKeep, "keep A (r1:t1): B - A = +0.0040 [-0.0030, +0.0110] on the primary score, not significant"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := verdict.ForComparison(runs.TrialComparison{A: side("r1", "t1"), B: side("r2", "t2"), Paired: []runs.Comparison{*tc.p}})
			if v.Kind != tc.kind || !strings.HasPrefix(v.Line, tc.want) {
				t.Errorf("verdict %s %q, want %s starting %q", v.Kind, v.Line, tc.kind, tc.want)
			}
		})
	}
}
