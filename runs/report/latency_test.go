package report_test

import (
	"bytes"
	"testing"

	"github.com/fusiontune/fusiontune/runs"
)

// TestRenderLatency: with a latency.json the report adds the quality ×
// p95 scatter with its Pareto front and the table of the measured
// trials. The numbers are made up but fixed, so the golden file pins the
// rendering.
func TestRenderLatency(t *testing.T) {
	run := loadFixture(t)
	lb, err := run.ReadLeaderboard()
	if err != nil {
		t.Fatal(err)
	}
	limit := 40.0
	l := runs.Latency{Note: "test numbers", Concurrency: 4, Finalists: 1, Repeats: 3, Constraints: []string{"latency.p95 <= 40ms"}, P95LimitMS: &limit}
	for i, e := range lb.Trials {
		if e.Status != runs.StatusOK {
			continue
		}
		// The best trial is slowest: 10 ms more per rank upwards.
		p95 := float64(60 - 10*i)
		tl := runs.TrialLatency{Index: e.Index, Name: e.Name, Primary: e.Primary, Sweep: &runs.LatencyStats{Queries: 40, P50MS: p95 / 2, P95MS: p95, P99MS: p95 + 5}}
		if i == 0 {
			reps := []runs.LatencyStats{{Queries: 40, P50MS: 30, P95MS: 58, P99MS: 70, QPS: 120}, {Queries: 40, P50MS: 31, P95MS: 61, P99MS: 72, QPS: 110}, {Queries: 40, P50MS: 29, P95MS: 66, P99MS: 75, QPS: 100}}
			med, sp := runs.MedianOf(reps)
			tl.Repeats, tl.Median, tl.Spread = reps, &med, &sp
		}
		tl.Excluded = p95 > 40
		if !tl.Excluded && l.Winner == "" {
			l.Winner = e.Name
		}
		l.Trials = append(l.Trials, tl)
	}
	l.Pareto = runs.ParetoFront(l.Trials)
	if err := run.WriteLatency(l); err != nil {
		t.Fatal(err)
	}
	got := render(t, run)
	for _, want := range []string{`<section id="latency">`, `aria-label="primary × p95 latency"`, "median of 3", "winner: " + l.Winner, "constraint p95 ≤ 40 ms"} {
		if !bytes.Contains(got, []byte(want)) {
			t.Errorf("report lacks %q", want)
		}
	}
	checkGolden(t, "TestRenderLatency.golden.html", got)
}
