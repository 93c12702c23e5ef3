package runs

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"time"
)

// LatencyFile holds a run's measured latency: per trial, client-side
// percentiles and throughput, the backend's per-stage timings, the
// finalists' repeated measurements, the Pareto front of quality against
// p95 latency, and the winner under score.constraints. Measured numbers
// differ from run to run, so they live here and never in leaderboard.json
// (which stays byte-identical for the same inputs); the leaderboard view,
// the report and `tune gate` join the two files by trial name.
const LatencyFile = "latency.json"

// Latency is latency.json.
type Latency struct {
	// Note says what the numbers are and why they are noisy.
	Note string `json:"note"`
	// Concurrency is the queries in flight while measuring (eval.concurrency);
	// Finalists and Repeats the latency settings the run measured with.
	Concurrency int `json:"concurrency"`
	Finalists   int `json:"finalists"`
	Repeats     int `json:"repeats"`
	// Trials are the trials with a measurement, in leaderboard order.
	Trials []TrialLatency `json:"trials"`
	// Pareto is the front of quality (primary, higher is better) against
	// p95 latency (lower is better) over the measured trials, by p95.
	Pareto []ParetoPoint `json:"pareto"`
	// Constraints are score.constraints as written; Winner is the best
	// trial (leaderboard order) that meets every one, "" when none does
	// or no constraint is set.
	Constraints []string `json:"constraints,omitempty"`
	Winner      string   `json:"winner,omitempty"`
	// P95LimitMS is the tightest latency.p95 <= (or <) constraint's
	// threshold in ms (nil: none), drawn on the report's scatter plot.
	P95LimitMS *float64 `json:"p95_limit_ms,omitempty"`
}

// TrialLatency is one trial's measurements.
type TrialLatency struct {
	Index   int     `json:"index"`
	Name    string  `json:"name"`
	Primary float64 `json:"primary"`
	// Sweep is measured from the trial's own live queries during the
	// sweep (client-side; no throughput, no stages). Replayed trials have
	// none: they sent no query of their own.
	Sweep *LatencyStats `json:"sweep,omitempty"`
	// Repeats are the finalists' repeated measurements; Median holds each
	// figure's median over them and Spread their range.
	Repeats []LatencyStats `json:"repeats,omitempty"`
	Median  *LatencyStats  `json:"median,omitempty"`
	Spread  *LatencySpread `json:"spread,omitempty"`
	// Constraints are score.constraints checked on the trial's effective
	// measurement (see Effective); Excluded is true when one failed, so
	// the trial cannot win.
	Constraints []GateCheck `json:"constraints,omitempty"`
	Excluded    bool        `json:"excluded,omitempty"`
}

// LatencyStats summarizes one pass over the queries. Percentiles are
// nearest-rank over the successful queries' client-side latencies, in
// milliseconds; QPS is the queries answered per second of the pass's wall
// time at the run's concurrency (0 when not measured).
type LatencyStats struct {
	Queries int     `json:"queries"`
	P50MS   float64 `json:"p50_ms"`
	P95MS   float64 `json:"p95_ms"`
	P99MS   float64 `json:"p99_ms"`
	QPS     float64 `json:"qps,omitempty"`
	// Stages are the backend's per-stage timings (lexical, dense, fusion,
	// rerank) when it reports them.
	Stages map[string]StageLatency `json:"stages,omitempty"`
}

// StageLatency is one backend stage's p50 and p95 in milliseconds.
type StageLatency struct {
	P50MS float64 `json:"p50_ms"`
	P95MS float64 `json:"p95_ms"`
}

// LatencySpread is the range of the repeated measurements.
type LatencySpread struct {
	P95MinMS float64 `json:"p95_min_ms"`
	P95MaxMS float64 `json:"p95_max_ms"`
	QPSMin   float64 `json:"qps_min,omitempty"`
	QPSMax   float64 `json:"qps_max,omitempty"`
}

// ParetoPoint is a trial on the Pareto front.
type ParetoPoint struct {
	Index   int     `json:"index"`
	Name    string  `json:"name"`
	Primary float64 `json:"primary"`
	P95MS   float64 `json:"p95_ms"`
}

// Effective returns the measurement gates, constraints and the Pareto
// front use: the median of the repeats when the trial was repeated, else
// its sweep measurement; source says which ("repeat" or "sweep"), ok is
// false when the trial has neither.
func (t TrialLatency) Effective() (s LatencyStats, source string, ok bool) {
	switch {
	case t.Median != nil:
		return *t.Median, "repeat", true
	case t.Sweep != nil:
		return *t.Sweep, "sweep", true
	}
	return LatencyStats{}, "", false
}

// Percentile returns the nearest-rank p-th percentile (0 < p <= 100) of
// sorted values: the smallest value with at least p% of the values at or
// below it; 0 for no values.
func Percentile(sorted []float64, p float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	i := int(math.Ceil(p/100*float64(len(sorted)))) - 1
	return sorted[max(0, min(i, len(sorted)-1))]
}

// StatsOf summarizes one pass: the successful queries' latencies (ms),
// their stage timings (ms by stage; nil entries for queries without), and
// the pass's wall time (0: throughput not measured).
func StatsOf(latencies []float64, stages []map[string]float64, wall time.Duration) LatencyStats {
	s := LatencyStats{Queries: len(latencies)}
	sorted := append([]float64(nil), latencies...)
	sort.Float64s(sorted)
	s.P50MS, s.P95MS, s.P99MS = Percentile(sorted, 50), Percentile(sorted, 95), Percentile(sorted, 99)
	if wall > 0 && len(latencies) > 0 {
		s.QPS = float64(len(latencies)) / wall.Seconds()
	}
	by := map[string][]float64{}
	for _, m := range stages {
		for k, v := range m {
			by[k] = append(by[k], v)
		}
	}
	for k, vs := range by {
		sort.Float64s(vs)
		if s.Stages == nil {
			s.Stages = map[string]StageLatency{}
		}
		s.Stages[k] = StageLatency{P50MS: Percentile(vs, 50), P95MS: Percentile(vs, 95)}
	}
	return s
}

// MedianOf returns each figure's median over the repeats (the mean of the
// middle two for an even count) and the spread of p95 and throughput.
func MedianOf(reps []LatencyStats) (LatencyStats, LatencySpread) {
	med := func(f func(LatencyStats) float64) float64 {
		vs := make([]float64, len(reps))
		for i, r := range reps {
			vs[i] = f(r)
		}
		sort.Float64s(vs)
		n := len(vs)
		if n == 0 {
			return 0
		}
		if n%2 == 1 {
			return vs[n/2]
		}
		return (vs[n/2-1] + vs[n/2]) / 2
	}
	var m LatencyStats
	var sp LatencySpread
	if len(reps) == 0 {
		return m, sp
	}
	m.Queries = reps[0].Queries
	m.P50MS = med(func(s LatencyStats) float64 { return s.P50MS })
	m.P95MS = med(func(s LatencyStats) float64 { return s.P95MS })
	m.P99MS = med(func(s LatencyStats) float64 { return s.P99MS })
	m.QPS = med(func(s LatencyStats) float64 { return s.QPS })
	stages := map[string]bool{}
	for _, r := range reps {
		for k := range r.Stages {
			stages[k] = true
		}
	}
	for k := range stages {
		if m.Stages == nil {
			m.Stages = map[string]StageLatency{}
		}
		m.Stages[k] = StageLatency{
			P50MS: med(func(s LatencyStats) float64 { return s.Stages[k].P50MS }),
			P95MS: med(func(s LatencyStats) float64 { return s.Stages[k].P95MS }),
		}
	}
	sp.P95MinMS, sp.P95MaxMS = math.Inf(1), math.Inf(-1)
	sp.QPSMin, sp.QPSMax = math.Inf(1), math.Inf(-1)
	for _, r := range reps {
		sp.P95MinMS, sp.P95MaxMS = math.Min(sp.P95MinMS, r.P95MS), math.Max(sp.P95MaxMS, r.P95MS)
		sp.QPSMin, sp.QPSMax = math.Min(sp.QPSMin, r.QPS), math.Max(sp.QPSMax, r.QPS)
	}
	return m, sp
}

// ParetoFront returns the trials no other trial dominates (at least as
// good on both primary, higher better, and p95, lower better, and better
// on one), ordered by p95 then name. Trials without a measurement are
// left out.
func ParetoFront(trials []TrialLatency) []ParetoPoint {
	var pts []ParetoPoint
	for _, t := range trials {
		if s, _, ok := t.Effective(); ok {
			pts = append(pts, ParetoPoint{Index: t.Index, Name: t.Name, Primary: t.Primary, P95MS: s.P95MS})
		}
	}
	var front []ParetoPoint
	for _, p := range pts {
		dominated := false
		for _, q := range pts {
			if q.Primary >= p.Primary && q.P95MS <= p.P95MS && (q.Primary > p.Primary || q.P95MS < p.P95MS) {
				dominated = true
				break
			}
		}
		if !dominated {
			front = append(front, p)
		}
	}
	sort.Slice(front, func(i, j int) bool {
		if front[i].P95MS != front[j].P95MS {
			return front[i].P95MS < front[j].P95MS
		}
		return front[i].Name < front[j].Name
	})
	return front
}

// Find returns the named trial's measurements.
func (l Latency) Find(name string) (TrialLatency, bool) {
	for _, t := range l.Trials {
		if t.Name == name {
			return t, true
		}
	}
	return TrialLatency{}, false
}

// OnFront reports whether the named trial is on the Pareto front.
func (l Latency) OnFront(name string) bool {
	for _, p := range l.Pareto {
		if p.Name == name {
			return true
		}
	}
	return false
}

// WriteLatency writes latency.json atomically.
func (r *Run) WriteLatency(l Latency) error { return r.WriteJSON(LatencyFile, l) }

// ReadLatency reads latency.json; ok is false when the run measured no
// latency.
func (r *Run) ReadLatency() (l Latency, ok bool, err error) {
	data, err := os.ReadFile(filepath.Join(r.Dir, LatencyFile))
	if errors.Is(err, os.ErrNotExist) {
		return Latency{}, false, nil
	}
	if err != nil {
		return Latency{}, false, fmt.Errorf("runs: %w", err)
	}
	if err := json.Unmarshal(data, &l); err != nil {
		return Latency{}, false, fmt.Errorf("runs: %s: %w", filepath.Join(r.Dir, LatencyFile), err)
	}
	return l, true, nil
}
