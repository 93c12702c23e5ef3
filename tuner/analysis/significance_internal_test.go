package analysis

import (
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fusiontune/fusiontune/metrics/stats"
	"github.com/fusiontune/fusiontune/runs"
)

// TestSetDecision: a decision is recorded with its adjusted p and
// interval rounded to 1e-12, except that rounding never moves an interval
// bound that excludes 0 onto 0; a significant decision is marked with the
// sign of its mean.
func TestSetDecision(t *testing.T) {
	for _, tc := range []struct {
		name            string
		d               stats.Decision
		wantLow         float64
		wantHigh        float64
		wantMark        string
		wantSignificant bool
	}{
		{"not significant", stats.Decision{Mean: 0.01, PAdjusted: 0.2, Level: 0.95, Low: -0.02, High: 0.04}, -0.02, 0.04, "", false},
		{"better", stats.Decision{Mean: 0.05, PAdjusted: 0.01, Level: 0.95, Low: 0.01, High: 0.09, Significant: true}, 0.01, 0.09, "+", true},
		{"worse", stats.Decision{Mean: -0.05, PAdjusted: 0.01, Level: 0.95, Low: -0.09, High: -0.01, Significant: true}, -0.09, -0.01, "-", true},
		{"noise is rounded away", stats.Decision{Mean: 0.05, Level: 0.95, Low: 0.0100000000000001, High: 0.09, Significant: true}, 0.01, 0.09, "+", true},
		{"a low bound just above 0 stays above", stats.Decision{Mean: 0.05, Level: 0.95, Low: 1e-15, High: 0.09, Significant: true}, 1e-15, 0.09, "+", true},
		{"a high bound just below 0 stays below", stats.Decision{Mean: -0.05, Level: 0.95, Low: -0.09, High: -1e-15, Significant: true}, -0.09, -1e-15, "-", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var c runs.Comparison
			setDecision(&c, &tc.d)
			if c.Low != tc.wantLow || c.High != tc.wantHigh {
				t.Errorf("interval = [%v, %v], want [%v, %v]", c.Low, c.High, tc.wantLow, tc.wantHigh)
			}
			if c.Mark != tc.wantMark || c.Significant != tc.wantSignificant {
				t.Errorf("mark, significant = %q, %v; want %q, %v", c.Mark, c.Significant, tc.wantMark, tc.wantSignificant)
			}
			if c.PAdjusted == nil || *c.PAdjusted != runs.Round(tc.d.PAdjusted) || c.Level != runs.Round(tc.d.Level) {
				t.Errorf("p adjusted, level = %v, %v; want %v, %v", c.PAdjusted, c.Level, tc.d.PAdjusted, tc.d.Level)
			}
		})
	}
}

// TestTrialResultsReadOnce: computations asking at once for one trial's
// results (its intervals, its paired test, its facts) wait for a single
// read or derivation of them, and later ones take it from the cache; a
// failed read is not cached.
func TestTrialResultsReadOnce(t *testing.T) {
	tr := &trialResults{cache: map[int][]runs.QueryResult{}, loading: map[int]*loadingResults{}}
	var loads atomic.Int64
	want := []runs.QueryResult{{QueryID: "q1", Primary: 0.5}}
	load := func() ([]runs.QueryResult, error) {
		loads.Add(1)
		time.Sleep(20 * time.Millisecond) // the others ask meanwhile
		return want, nil
	}
	var wg sync.WaitGroup
	got := make([][]runs.QueryResult, 8)
	for i := range got {
		wg.Go(func() { got[i], _ = tr.getWith(3, load) })
	}
	wg.Wait()
	if _, err := tr.getWith(3, load); err != nil {
		t.Fatal(err)
	}
	if n := loads.Load(); n != 1 {
		t.Errorf("%d reads of one trial's results, want 1", n)
	}
	for i, g := range got {
		if len(g) != 1 || &g[0] != &want[0] {
			t.Errorf("caller %d got %v, not the one read", i, g)
		}
	}
	failing := func() ([]runs.QueryResult, error) { loads.Add(1); return nil, errors.New("unreadable") }
	for range 2 {
		if _, err := tr.getWith(4, failing); err == nil {
			t.Error("a failed read gave no error")
		}
	}
	if n := loads.Load(); n != 3 {
		t.Errorf("%d reads, want 3 (a failed read is tried again)", n)
	}
}
