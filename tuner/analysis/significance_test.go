package analysis_test

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/fusiontune/fusiontune/tuner/analysis"

	"github.com/fusiontune/fusiontune/metrics/stats"
	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner/promote"
)

// statsRun records a run with a baseline and trials whose per-query
// primary scores are the baseline's plus shift plus seeded noise.
func statsRun(t testing.TB, shifts map[string]float64) (*runs.Run, []runs.TrialRecord) {
	t.Helper()
	store, err := runs.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	run, err := store.Create(runs.Manifest{Seed: 42}, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	names := []string{"baseline", "better", "noise", "same", "worse"}
	base := make([]float64, 40)
	rng := rand.New(rand.NewPCG(1, 1))
	for i := range base {
		base[i] = 0.2 + 0.5*rng.Float64()
	}
	var recs []runs.TrialRecord
	for ti, name := range names {
		noise := rand.New(rand.NewPCG(2, uint64(ti)))
		var results []runs.QueryResult
		for q, b := range base {
			cat := []string{"a", "b", "tiny"}[min(q/18, 2)] // 18, 18, 4
			r := runs.QueryResult{QueryID: fmt.Sprintf("q%02d", q), Category: cat, Primary: b, Scores: map[string]float64{"NDCG@10": b}}
			if name != "baseline" && name != "same" {
				r.Primary = b + shifts[name] + 0.05*noise.NormFloat64()
				r.Scores["NDCG@10"] = r.Primary
			}
			results = append(results, r)
		}
		// An unjudged query and a failed one take no part.
		results = append(results, runs.QueryResult{QueryID: "unjudged", Unjudged: true, Primary: float64(ti)})
		results = append(results, runs.QueryResult{QueryID: "failed", Error: "timeout", Primary: float64(ti)})
		rec := runs.TrialRecord{Index: ti, Name: name, Baseline: ti == 0, Status: runs.StatusOK, Mode: "live"}
		for _, r := range results[:len(base)] {
			rec.Primary += r.Primary / float64(len(base))
		}
		if err := run.RecordTrial(rec, results); err != nil {
			t.Fatal(err)
		}
		recs = append(recs, rec)
	}
	return run, recs
}

func TestSignificance(t *testing.T) {
	run, recs := statsRun(t, map[string]float64{"better": 0.08, "noise": 0.005, "worse": -0.08})
	lb := runs.NewLeaderboard("primary", nil, recs)
	o := analysis.StatsOptions{Seed: 42, Metrics: []string{"NDCG@10"}}
	if err := analysis.Significance(context.Background(), run, &lb, o); err != nil {
		t.Fatal(err)
	}
	get := func(name string) runs.Entry {
		e, err := lb.Find(name)
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	better, noise, same, worse := get("better"), get("noise"), get("same"), get("worse")
	if c := better.Comparison; c == nil || !c.Significant || c.Mark != "+" || c.N != 40 || c.Correction != "holm" || c.Low <= 0 {
		t.Errorf("better: %+v", c)
	}
	if c := worse.Comparison; c == nil || !c.Significant || c.Mark != "-" || c.High >= 0 {
		t.Errorf("worse: %+v", c)
	}
	if c := noise.Comparison; c == nil || c.Significant || c.Mark != "" {
		t.Errorf("noise: %+v", c)
	}
	if c := same.Comparison; c == nil || c.PAdjusted != nil || c.NonZero != 0 || len(c.Warnings) != 1 {
		t.Errorf("same: %+v", c)
	}
	// Holm over the three testable trials: every adjusted p is at least
	// the raw one, and at most 3 times it.
	for _, e := range []runs.Entry{better, noise, worse} {
		c := e.Comparison
		if *c.PAdjusted < c.P || *c.PAdjusted > 3*c.P+1e-12 || c.Family != 3 {
			t.Errorf("%s: p %v adjusted %v, family %d", e.Name, c.P, *c.PAdjusted, c.Family)
		}
	}
	if len(better.MetricComparisons) != 1 || better.MetricComparisons[0].Metric != "NDCG@10" {
		t.Errorf("metric comparisons: %+v", better.MetricComparisons)
	}
	iv := better.CategoryIntervals
	if iv["a"].N != 18 || iv["a"].Warning != "" || iv["tiny"].Warning != "category tiny has 4 queries: no interval (need 5)" {
		t.Errorf("category intervals: %+v", iv)
	}
	if lb.Stats == nil || lb.Stats.Seed != 42 || lb.Stats.Against != "baseline" || lb.Stats.Resamples != 2000 {
		t.Errorf("stats info: %+v", lb.Stats)
	}
	wantWarn := "category tiny has 4 queries: no interval (need 5)"
	found := false
	for _, w := range lb.Warnings {
		found = found || w == wantWarn
	}
	if !found {
		t.Errorf("warnings %q lack %q", lb.Warnings, wantWarn)
	}

	// Same inputs, same bytes.
	lb2 := runs.NewLeaderboard("primary", nil, recs)
	if err := analysis.Significance(context.Background(), run, &lb2, o); err != nil {
		t.Fatal(err)
	}
	a, _ := runs.MarshalJSON(lb)
	b, _ := runs.MarshalJSON(lb2)
	if !bytes.Equal(a, b) {
		t.Error("leaderboard JSON differs between two identical statistics steps")
	}
}

func TestCheckPromotion(t *testing.T) {
	run, recs := statsRun(t, map[string]float64{"better": 0.08, "noise": 0.005, "worse": -0.08})
	recs[1].BackendConfig = "fusion: {k: 40}\n"
	recs[2].BackendConfig = "fusion: {k: 50}\n"
	for _, r := range recs[1:3] {
		res, err := run.QueryResults(r.Index)
		if err != nil {
			t.Fatal(err)
		}
		if err := run.RecordTrial(r, res); err != nil {
			t.Fatal(err)
		}
	}
	// Category scorecards for the guard.
	for i, p := range []float64{0.5, 0.6, 0.5, 0.5, 0.4} {
		recs[i].Categories = map[string]map[string]float64{"a": {"primary": p}}
	}
	lb := runs.NewLeaderboard("primary", nil, recs)
	if err := analysis.Significance(context.Background(), run, &lb, analysis.StatsOptions{Seed: 42}); err != nil {
		t.Fatal(err)
	}
	find := func(n string) runs.Entry { e, _ := lb.Find(n); return e }
	p := promote.Policy{Stats: analysis.StatsOptions{Seed: 42}}
	for _, tc := range []struct {
		name, trial string
		production  []byte
		policy      promote.Policy
		allowed     bool
		against     string
		reason      string
	}{
		{"significant vs baseline", "better", nil, p, true, "baseline", ""},
		{"noise vs baseline", "noise", nil, p, false, "baseline", "is not significantly better than the baseline"},
		{"worse", "worse", nil, p, false, "baseline", "is not significantly better"},
		{"best is the baseline", "baseline", nil, p, false, "baseline", "is the baseline itself"},
		{"production is the best", "better", []byte("fusion: {k: 40}\n"), p, false, "better", "is the production config itself"},
		{"better vs production noise", "better", []byte("fusion: {k: 50}"), p, true, "noise", ""},
		{"production laid out otherwise is the best", "better", []byte("fusion:\n  k: 40.0\n"), p, false, "better", "is the production config itself"},
		{"production as indented JSON, noise is worse", "noise", []byte("{\n  \"fusion\": {\n    \"k\": 40\n  }\n}\n"), p, false, "better", "is not significantly better than the production config"},
		{"production as installed", "better", []byte("installed:\n  fusion: {k: 50}\n"), promote.Policy{Stats: p.Stats, Install: func(c []byte) ([]byte, error) {
			return append([]byte("installed:\n  "), c...), nil
		}}, true, "noise", ""},
		{"guarded regression", "worse", nil, promote.Policy{Guarded: []string{"a"}, Stats: p.Stats}, false, "baseline", `guarded category "a" regresses by 0.1000`},
		{"guarded unknown", "better", nil, promote.Policy{Guarded: []string{"zzz"}, Stats: p.Stats}, false, "baseline", `guarded category "zzz" is not in the run`},
		{"guarded within tolerance", "better", nil, promote.Policy{Guarded: []string{"a"}, Tolerance: 0.2, Stats: p.Stats}, true, "baseline", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := promote.Check(run, lb, find(tc.trial), tc.production, tc.policy)
			if err != nil {
				t.Fatal(err)
			}
			if d.Allowed != tc.allowed || d.Against != tc.against {
				t.Fatalf("allowed %v against %q, want %v %q; reasons %q", d.Allowed, d.Against, tc.allowed, tc.against, d.Reasons)
			}
			if tc.reason != "" && !bytes.Contains([]byte(fmt.Sprint(d.Reasons)), []byte(tc.reason)) {
				t.Errorf("reasons %q lack %q", d.Reasons, tc.reason)
			}
		})
	}
}

// BenchmarkSignificance times the statistics step after a sweep: five
// trials of 40 queries (four comparisons with bootstrap, Wilcoxon and
// randomization tests, plus category intervals), reading the per-query
// results from disk.
func BenchmarkSignificance(b *testing.B) {
	run, recs := statsRun(b, map[string]float64{"better": 0.08, "noise": 0.005, "worse": -0.08})
	for b.Loop() {
		lb := runs.NewLeaderboard("primary", nil, recs)
		if err := analysis.Significance(context.Background(), run, &lb, analysis.StatsOptions{Seed: 42}); err != nil {
			b.Fatal(err)
		}
	}
}

// Trials whose per-query scores are identical (e.g. chunk sizes that do
// not change short documents) must get identical intervals and p-values:
// every comparison against one reference resamples the same queries.
func TestSignificanceIdenticalTrialsIdenticalIntervals(t *testing.T) {
	store, err := runs.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	run, err := store.Create(runs.Manifest{Seed: 7}, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 3))
	base, twin := make([]float64, 30), make([]float64, 30)
	for i := range base {
		base[i] = rng.Float64()
		twin[i] = base[i] + 0.02*rng.NormFloat64()
	}
	var recs []runs.TrialRecord
	for ti, name := range []string{"baseline", "twin-a", "twin-b"} {
		scores := twin
		if ti == 0 {
			scores = base
		}
		var results []runs.QueryResult
		for q, v := range scores {
			results = append(results, runs.QueryResult{QueryID: fmt.Sprintf("q%02d", q), Category: []string{"x", "y"}[q%2], Primary: v})
		}
		rec := runs.TrialRecord{Index: ti, Name: name, Baseline: ti == 0, Status: runs.StatusOK, Mode: "live"}
		if err := run.RecordTrial(rec, results); err != nil {
			t.Fatal(err)
		}
		recs = append(recs, rec)
	}
	lb := runs.NewLeaderboard("primary", nil, recs)
	if err := analysis.Significance(context.Background(), run, &lb, analysis.StatsOptions{Seed: 7}); err != nil {
		t.Fatal(err)
	}
	a, _ := lb.Find("twin-a")
	b, _ := lb.Find("twin-b")
	ca, cb := *a.Comparison, *b.Comparison
	if ca.Low != cb.Low || ca.High != cb.High || ca.P != cb.P || ca.Seed != cb.Seed {
		t.Errorf("identical trials, different statistics:\n a %+v\n b %+v", ca, cb)
	}
	if ca.Low == ca.High {
		t.Errorf("degenerate interval %+v", ca)
	}
	for cat, iv := range a.CategoryIntervals {
		if b.CategoryIntervals[cat] != iv {
			t.Errorf("category %s: %+v vs %+v", cat, iv, b.CategoryIntervals[cat])
		}
	}
}

// TestCheckPromotionSelectThenConfirm: after a dev-split sweep the policy
// tests the one pre-planned held-out comparison, not the dev leaderboard's:
// a trial significantly better on dev is refused when it does not hold up
// on the held-out queries, and promoted when it does.
func TestCheckPromotionSelectThenConfirm(t *testing.T) {
	run, recs := statsRun(t, map[string]float64{"better": 0.08, "noise": 0.005, "worse": -0.08})
	lb := runs.NewLeaderboard("primary", nil, recs)
	o := analysis.StatsOptions{Seed: 42}
	if err := analysis.Significance(context.Background(), run, &lb, o); err != nil {
		t.Fatal(err)
	}
	best, _ := lb.Find("better")
	base, _ := lb.Find("baseline")
	if !best.Comparison.Significant {
		t.Fatal("fixture: better is not significant on dev")
	}
	held := func(shift float64) []runs.QueryResult {
		rng := rand.New(rand.NewPCG(9, uint64(1000*shift)))
		var out []runs.QueryResult
		for q := range 60 {
			out = append(out, runs.QueryResult{QueryID: fmt.Sprintf("h%02d", q), Primary: 0.5 + shift + 0.05*rng.NormFloat64()})
		}
		return out
	}
	ref := held(0)
	for _, tc := range []struct {
		name    string
		shift   float64
		allowed bool
	}{
		{"gain kept", 0.06, true},
		{"gain lost", 0.001, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := &runs.HeldOut{Trial: best.Name, Split: "test", Queries: 60}
			chosen := ref
			if tc.shift != 0 {
				chosen = held(tc.shift)
			}
			if err := analysis.Confirm(h, chosen, ref, base.Name, best.Primary-base.Primary, o); err != nil {
				t.Fatal(err)
			}
			l := lb
			l.HeldOut = h
			d, err := promote.Check(run, l, best, nil, promote.Policy{Stats: o})
			if err != nil {
				t.Fatal(err)
			}
			if d.Allowed != tc.allowed || !d.Confirmed || d.Comparison != h.Confirmation {
				t.Fatalf("allowed %v confirmed %v, want %v; reasons %q", d.Allowed, d.Confirmed, tc.allowed, d.Reasons)
			}
			if !tc.allowed && !strings.Contains(fmt.Sprint(d.Reasons), "on the held-out queries") {
				t.Errorf("reasons %q do not say held-out", d.Reasons)
			}
			if h.Kept == nil || (tc.allowed && *h.Kept <= 0) {
				t.Errorf("kept %v", h.Kept)
			}
		})
	}
}

// TestSignificanceCancelled: statistics far too large to finish
// (permutations and resamples in the billions) stop within a
// second of the context being cancelled, with the context's error.
func TestSignificanceCancelled(t *testing.T) {
	cases := []struct {
		name string
		th   stats.Thresholds
	}{
		{"resamples", stats.Thresholds{Resamples: 1 << 22, Permutations: 100}},
		{"permutations", stats.Thresholds{Permutations: 1 << 40}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			run, recs := statsRun(t, map[string]float64{"better": 0.08, "noise": 0.005, "worse": -0.08})
			lb := runs.NewLeaderboard("primary", nil, recs)
			wantCancelled(t, 300*time.Millisecond, func(ctx context.Context) error {
				return analysis.Significance(ctx, run, &lb, analysis.StatsOptions{Seed: 42, Thresholds: tc.th})
			})
		})
	}
}
