package analysis_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/fusiontune/fusiontune/tuner/analysis"

	"github.com/fusiontune/fusiontune/runs"
)

// simulatedRun records a run of a baseline and m trials over n queries
// whose per-query primary scores are the baseline's plus a trial's effect
// plus seeded noise.
func simulatedRun(t testing.TB, seed uint64) (*runs.Run, []runs.TrialRecord) {
	t.Helper()
	store, err := runs.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	run, err := store.Create(runs.Manifest{Seed: int64(seed)}, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(seed, 5))
	m, n := 2+rng.IntN(25), 20+rng.IntN(100)
	base := make([]float64, n)
	for i := range base {
		base[i] = 0.2 + 0.6*rng.Float64()
	}
	var recs []runs.TrialRecord
	for ti := 0; ti <= m; ti++ {
		effect := []float64{0, 0, 0.01, 0.025, 0.05}[rng.IntN(5)]
		rec := runs.TrialRecord{Index: ti, Name: fmt.Sprintf("t%02d", ti), Baseline: ti == 0, Status: runs.StatusOK, Mode: "live"}
		results := make([]runs.QueryResult, n)
		for q, b := range base {
			v := b
			if ti > 0 {
				v = b + effect + 0.1*rng.NormFloat64()
			}
			results[q] = runs.QueryResult{QueryID: fmt.Sprintf("q%03d", q), Primary: v}
			rec.Primary += v / float64(n)
		}
		if err := run.RecordTrial(rec, results); err != nil {
			t.Fatal(err)
		}
		recs = append(recs, rec)
	}
	return run, recs
}

// TestLeaderboardSignificanceMatchesInterval: over seeded simulated runs
// (3 to 26 trials, 20 to 120 queries, effects from none to large), no
// leaderboard row is marked significant while its interval contains 0,
// or not significant while its interval excludes 0; every row names its
// rule and family. Before the one decision rule the leaderboard showed an
// unadjusted bootstrap interval beside Holm-corrected Wilcoxon marks, and
// such rows appeared (e.g. "+0.0316 [+0.0063, +0.0620] n.s.").
func TestLeaderboardSignificanceMatchesInterval(t *testing.T) {
	var sig, rows int
	for seed := range uint64(12) {
		run, recs := simulatedRun(t, seed)
		lb := runs.NewLeaderboard("primary", nil, recs)
		if err := analysis.Significance(context.Background(), run, &lb, analysis.StatsOptions{Seed: int64(seed)}); err != nil {
			t.Fatal(err)
		}
		for _, e := range lb.Trials {
			c := e.Comparison
			if c == nil {
				continue
			}
			rows++
			excl := c.Low > 0 || c.High < 0
			if c.Significant != excl || (c.Mark != "") != c.Significant {
				t.Errorf("seed %d %s: %s [%s, %s] mark %q significant %v", seed, e.Name,
					runs.FormatDelta(c.Delta), runs.FormatDelta(c.Low), runs.FormatDelta(c.High), c.Mark, c.Significant)
			}
			if c.Significant != (*c.PAdjusted < c.Alpha) {
				t.Errorf("seed %d %s: significant %v but adjusted p %v", seed, e.Name, c.Significant, *c.PAdjusted)
			}
			if want := fmt.Sprintf("holm over %d trials", len(recs)-1); c.Family != len(recs)-1 || !strings.Contains(c.Rule, want) {
				t.Errorf("seed %d %s: family %d, rule %q, want %q", seed, e.Name, c.Family, c.Rule, want)
			}
			if c.Significant {
				sig++
			}
		}
	}
	if sig == 0 || sig == rows {
		t.Fatalf("%d of %d rows significant: the simulation does not test the property", sig, rows)
	}
}

// TestCompareAgreesWithLeaderboard: `tune compare` of a trial against the
// baseline of the same run reports the leaderboard's decision (same rule,
// family, interval, p-values and mark); across runs it states a family of
// one and its interval still matches its mark.
func TestCompareAgreesWithLeaderboard(t *testing.T) {
	run, recs := simulatedRun(t, 3)
	lb := runs.NewLeaderboard("primary", nil, recs)
	o := analysis.StatsOptions{Seed: 11}
	if err := analysis.Significance(context.Background(), run, &lb, o); err != nil {
		t.Fatal(err)
	}
	if err := run.WriteLeaderboard(lb); err != nil {
		t.Fatal(err)
	}
	base, err := runs.TrialOf(run, lb.Baseline)
	if err != nil {
		t.Fatal(err)
	}
	saved, err := run.ReadLeaderboard()
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range saved.Trials {
		if e.Name == base.Name || e.Comparison == nil {
			continue
		}
		got, err := analysis.CompareRuns(run, base, run, e, analysis.CompareOptions{Stats: o})
		if err != nil {
			t.Fatal(err)
		}
		p, want := got.Paired[0], *e.Comparison
		if p.Rule != want.Rule || p.Family != want.Family || p.Low != want.Low || p.High != want.High ||
			p.P != want.P || *p.PAdjusted != *want.PAdjusted || p.Mark != want.Mark || p.Significant != want.Significant {
			t.Errorf("%s: compare %+v\nleaderboard %+v", e.Name, p, want)
		}
	}
	// Another run with the same scores: a family of one.
	other, recs2 := simulatedRun(t, 3)
	lb2 := runs.NewLeaderboard("primary", nil, recs2)
	if err := analysis.Significance(context.Background(), other, &lb2, o); err != nil {
		t.Fatal(err)
	}
	e, _ := lb2.Find(recs2[1].Name)
	got, err := analysis.CompareRuns(run, base, other, e, analysis.CompareOptions{Stats: o})
	if err != nil {
		t.Fatal(err)
	}
	p := got.Paired[0]
	if p.Family != 1 || p.Correction != "none" || !strings.Contains(p.Rule, "one comparison, no correction") ||
		p.Significant != (p.Low > 0 || p.High < 0) || p.Level != 0.95 {
		t.Errorf("across runs: %+v", p)
	}
}

// TestPowerLine: the leaderboard records the minimum detectable effect of
// the best trial vs the baseline (α over the family, 80% power, the
// observed sd of the paired differences) and says when the best gain is
// below it.
func TestPowerLine(t *testing.T) {
	run, recs := statsRun(t, map[string]float64{"better": 0.08, "noise": 0.005, "worse": -0.08})
	lb := runs.NewLeaderboard("primary", nil, recs)
	if err := analysis.Significance(context.Background(), run, &lb, analysis.StatsOptions{Seed: 42}); err != nil {
		t.Fatal(err)
	}
	p := lb.Power
	if p == nil || p.Trial != "better" || p.Against != "baseline" || p.N != 40 || p.Family != 3 || p.Power != 0.8 {
		t.Fatalf("power %+v", p)
	}
	// statsRun's noise has sd 0.05: MDE ≈ (z(1-0.05/6)+z(0.8))·0.05/√40.
	if want := (2.393980 + 0.841621) * p.SD / math.Sqrt(40); math.Abs(p.MDE-want) > 1e-5 || p.SD < 0.03 || p.SD > 0.07 {
		t.Errorf("MDE %v sd %v, want %v", p.MDE, p.SD, want)
	}
	if p.Below || strings.Contains(p.Line(), "below") {
		t.Errorf("a gain of %v is not below the MDE %v: %s", p.Delta, p.MDE, p.Line())
	}
	small := *p
	small.Delta, small.Below = 0.004, true
	if !strings.Contains(small.Line(), "the best gain +0.0040 is below it") {
		t.Errorf("line %q", small.Line())
	}
}
