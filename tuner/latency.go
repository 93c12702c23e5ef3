package tuner

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner/pass"
	"github.com/fusiontune/fusiontune/tuner/scoring"
	"github.com/fusiontune/fusiontune/tuner/verdict"
)

// Defaults and ranges of LatencyOptions (the latency settings block).
const (
	// DefaultLatencyFinalists is latency.finalists: no repeated
	// measurement unless asked for (each finalist costs a warm-up and
	// Repeats passes over the queries).
	DefaultLatencyFinalists = 0
	// MaxLatencyFinalists bounds latency.finalists.
	MaxLatencyFinalists = 1000
	// DefaultLatencyRepeats is latency.repeats.
	DefaultLatencyRepeats = 3
	// MaxLatencyRepeats bounds latency.repeats.
	MaxLatencyRepeats = 20
)

// LatencyOptions say which trials' latency is measured again after the
// sweep: the Finalists best successful trials (leaderboard order, 0: none,
// at most MaxLatencyFinalists), each Repeats times (1 to
// MaxLatencyRepeats) after one unrecorded warm-up pass, at the eval
// concurrency. The medians of the repeats are what gates, constraints and
// the Pareto front use for them.
type LatencyOptions struct {
	Finalists int
	Repeats   int
}

// DefaultLatencyOptions returns the defaults.
func DefaultLatencyOptions() LatencyOptions {
	return LatencyOptions{Finalists: DefaultLatencyFinalists, Repeats: DefaultLatencyRepeats}
}

// Check returns the problems of o as "field: message" lines relative to
// the latency block.
func (o LatencyOptions) Check() []string {
	var out []string
	if o.Finalists < 0 || o.Finalists > MaxLatencyFinalists {
		out = append(out, fmt.Sprintf("finalists: must be in [0, %d] (got %d; 0: no repeated measurement)", MaxLatencyFinalists, o.Finalists))
	}
	if o.Repeats < 1 || o.Repeats > MaxLatencyRepeats {
		out = append(out, fmt.Sprintf("repeats: must be in [1, %d] (got %d)", MaxLatencyRepeats, o.Repeats))
	}
	return out
}

// latencyNote is latency.json's caveat.
const latencyNote = "client-side wall time per query as the tuner saw it, at the eval concurrency, on whatever else the machine was running: noisy and machine-specific, so kept out of leaderboard.json. " +
	"sweep: the trial's own live queries (replayed trials sent none and have none); repeats: the finalists measured again after a warm-up, whose medians gates, constraints and the Pareto front use"

// measureLatency writes latency.json for the run after its sweep on the
// still-running backend b: each live trial's sweep latency, the
// finalists' repeated measurements, the Pareto front, and the constraints
// with the winner they leave. Nothing is written when no trial has a
// measurement. Interrupted (ctx cancelled), it returns ctx's error, so
// that the run is marked interrupted rather than analysed.
func (c Config) measureLatency(ctx context.Context, run *runs.Run, b backend.Backend) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	recs, err := run.Trials()
	if err != nil {
		return err
	}
	lo := DefaultLatencyOptions()
	if c.Latency != nil {
		lo = *c.Latency
	}
	eo := c.Eval.WithDefaults()
	mode := map[int]string{}
	for _, r := range recs {
		mode[r.Index] = r.Mode
	}
	lb := runs.NewLeaderboard("", nil, recs)
	l := runs.Latency{Note: latencyNote, Concurrency: eo.Concurrency, Finalists: lo.Finalists, Repeats: lo.Repeats}
	for _, g := range c.Constraints {
		l.Constraints = append(l.Constraints, g.Text)
		if g.Metric == verdict.LatencyP95 && (g.Op == "<=" || g.Op == "<") && (l.P95LimitMS == nil || g.Value < *l.P95LimitMS) {
			l.P95LimitMS = &g.Value
		}
	}
	finalists := 0
	for _, e := range lb.Trials {
		if e.Status != runs.StatusOK {
			continue
		}
		final := finalists < lo.Finalists
		if final {
			finalists++
			fmt.Fprintf(c.Log, "latency: finalist %d/%d %s: %d passes of %d queries at concurrency %d (after a warm-up)\n",
				finalists, min(lo.Finalists, len(lb.Trials)), e.Name, lo.Repeats, len(c.Queries), eo.Concurrency)
		}
		t, err := c.trialLatency(ctx, run, b, e, mode[e.Index] == string(ModeLive), final, lo.Repeats)
		if err != nil {
			return err
		}
		if t.Sweep != nil || t.Median != nil {
			l.Trials = append(l.Trials, t)
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if len(l.Trials) == 0 && len(c.Constraints) == 0 {
		return nil
	}
	l.Pareto = runs.ParetoFront(l.Trials)
	if err := c.applyConstraints(run, lb, &l); err != nil {
		return err
	}
	if err := run.WriteLatency(l); err != nil {
		return err
	}
	logLatency(c.Log, l)
	return nil
}

// trialLatency is trial e's measurements: its sweep latency from its own
// queries when it ran live, and, as a finalist, repeats passes on b.
func (c Config) trialLatency(ctx context.Context, run *runs.Run, b backend.Backend, e runs.Entry, live, final bool, repeats int) (runs.TrialLatency, error) {
	t := runs.TrialLatency{Index: e.Index, Name: e.Name, Primary: e.Primary}
	if live {
		// A shared study's trials imported from other workers have no
		// per-query file here: no sweep measurement.
		results, _ := run.QueryResults(e.Index)
		t.Sweep = verdict.QueryLatency(results)
	}
	if !final {
		return t, nil
	}
	reps, err := repeatLatency(ctx, b, e, c.Queries, c.Scorer, c.Eval, repeats, run.ID())
	if err != nil {
		return t, fmt.Errorf("latency: finalist %q: %w", e.Name, err)
	}
	med, sp := runs.MedianOf(reps)
	t.Repeats, t.Median, t.Spread = reps, &med, &sp
	return t, nil
}

// applyConstraints checks the constraints on every measured trial, marks
// the excluded ones, and names the winner: the first trial in leaderboard
// order that meets them all. A trial without a latency measurement fails
// a latency constraint, so it cannot win.
func (c Config) applyConstraints(run *runs.Run, lb runs.Leaderboard, l *runs.Latency) error {
	if len(c.Constraints) == 0 {
		return nil
	}
	for i := range l.Trials {
		t := &l.Trials[i]
		e, err := lb.Find(t.Name)
		if err != nil {
			return err
		}
		rs, err := verdict.CheckGatesWith(run, e, c.Constraints, l)
		if err != nil {
			return err
		}
		for _, r := range rs {
			t.Constraints = append(t.Constraints, r.GateCheck())
			t.Excluded = t.Excluded || !r.Pass
		}
	}
	for _, e := range lb.Trials {
		if e.Status != runs.StatusOK {
			continue
		}
		if t, ok := l.Find(e.Name); ok && !t.Excluded {
			l.Winner = e.Name
			break
		}
		if _, ok := l.Find(e.Name); !ok && !verdict.NeedsLatency(c.Constraints) {
			// Quality-only constraints on an unmeasured trial.
			rs, err := verdict.CheckGatesWith(run, e, c.Constraints, l)
			if err != nil {
				return err
			}
			if len(verdict.FailedGates(rs)) == 0 {
				l.Winner = e.Name
				break
			}
		}
	}
	return nil
}

// repeatLatency measures trial e on b: one warm-up pass, then n passes
// over the queries at the eval concurrency, each summarized with its
// throughput and the backend's stage timings.
func repeatLatency(ctx context.Context, b backend.Backend, e runs.Entry, queries []scoring.Query, sc scoring.Scorer, o pass.EvalOptions, n int, runID string) ([]runs.LatencyStats, error) {
	if _, err := pass.Start(ctx, b, e.Params, false); err != nil {
		return nil, err
	}
	o = o.WithDefaults()
	o.Timings = true
	var mu sync.Mutex
	stages := map[string]map[string]float64{}
	o.OnResponse = func(q scoring.Query, resp backend.SearchResponse) {
		if resp.Timings != nil {
			mu.Lock()
			stages[q.ID] = resp.Timings.Map()
			mu.Unlock()
		}
	}
	prefix := fmt.Sprintf("%s/latency/%03d", runID, e.Index)
	ps := pass.Pass{Searcher: b, Queries: queries, Scorer: sc, Eval: o, Prefix: prefix + "/warmup"}
	if _, err := ps.Search(ctx); err != nil {
		return nil, err
	}
	out := make([]runs.LatencyStats, 0, n)
	for i := range n {
		clear(stages)
		start := time.Now()
		ps.Prefix = fmt.Sprintf("%s/%d", prefix, i+1)
		batch, err := ps.Search(ctx)
		wall := time.Since(start)
		if err != nil {
			return nil, err
		}
		var ms []float64
		var st []map[string]float64
		for _, r := range batch.Results {
			if r.Error == "" {
				ms = append(ms, r.LatencyMS)
				st = append(st, stages[r.QueryID])
			}
		}
		out = append(out, runs.StatsOf(ms, st, wall))
	}
	return out, nil
}

// logLatency writes the measured trials' effective p95 and the winner.
func logLatency(w interface{ Write([]byte) (int, error) }, l runs.Latency) {
	var front []string
	for _, p := range l.Pareto {
		front = append(front, fmt.Sprintf("%s (%.4f, p95 %.1fms)", p.Name, p.Primary, p.P95MS))
	}
	fmt.Fprintf(w, "latency: %d trials measured (%s); Pareto front: %s\n", len(l.Trials), runs.LatencyFile, strings.Join(front, ", "))
	if len(l.Constraints) > 0 {
		if l.Winner == "" {
			fmt.Fprintf(w, "score.constraints (%s): no measured trial meets them\n", strings.Join(l.Constraints, "; "))
		} else {
			fmt.Fprintf(w, "score.constraints (%s): winner %s\n", strings.Join(l.Constraints, "; "), l.Winner)
		}
	}
}

// constrain sets out's winner under score.constraints from latency.json.
func (c Config) constrain(run *runs.Run, out *Outcome) error {
	if len(c.Constraints) == 0 {
		return nil
	}
	out.Constrained = true
	l, ok, err := run.ReadLatency()
	if err != nil || !ok || l.Winner == "" {
		return err
	}
	e, err := out.Leaderboard.Find(l.Winner)
	if err != nil {
		return err
	}
	out.Winner = &e
	return nil
}
