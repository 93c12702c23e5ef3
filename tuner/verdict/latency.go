package verdict

import (
	"fmt"
	"math"

	"github.com/fusiontune/fusiontune/runs"
)

// QueryLatency is the latency statistics of the queries that succeeded
// (nil: none did).
func QueryLatency(results []runs.QueryResult) *runs.LatencyStats {
	var ms []float64
	for _, r := range results {
		if r.Error == "" {
			ms = append(ms, r.LatencyMS)
		}
	}
	if len(ms) == 0 {
		return nil
	}
	s := runs.StatsOf(ms, nil, 0)
	return &s
}

// NeedsLatency reports whether a gate reads latency.json.
func NeedsLatency(gates []Gate) bool {
	for _, g := range gates {
		if isLatencyMetric(g.Metric) {
			return true
		}
	}
	return false
}

// ConstrainedObjective is the value a sampler is told for a trial when
// the sampler searches under score.constraints (setting
// score.constrain_sampler): a trial meeting every constraint is told its
// primary score; one missing any is told -1 minus its total relative
// violation (the sum, over the constraints it misses, of how far its
// value is from the threshold relative to the threshold), below every
// trial that meets them (primary scores are ≥ 0), and the nearer to
// meeting them the higher. TPE and CMA-ES rank trials, so they model the
// region where the constraints hold as the good one. A latency
// constraint is checked on the trial's own live queries (their
// client-side percentiles); a trial whose value cannot be measured (a
// replayed trial's latency, a metric not scored) is told its primary.
// The recorded primary score and the leaderboard are unchanged.
func ConstrainedObjective(run *runs.Run, constraints []Gate) func(runs.TrialRecord, []runs.QueryResult) (float64, error) {
	return func(rec runs.TrialRecord, results []runs.QueryResult) (float64, error) {
		if rec.Status != runs.StatusOK || len(constraints) == 0 {
			return rec.Primary, nil
		}
		lb := runs.NewLeaderboard("", nil, []runs.TrialRecord{rec})
		e := lb.Trials[0]
		var lat *runs.Latency
		if NeedsLatency(constraints) {
			l, err := sweepLatency(run, e, results)
			if err != nil {
				return 0, err
			}
			lat = l
		}
		rs, err := CheckGatesWith(run, e, constraints, lat)
		if err != nil {
			return 0, fmt.Errorf("trial %q: constraints: %w", rec.Name, err)
		}
		violation := 0.0
		for _, r := range rs {
			if r.Measured && !r.Pass {
				violation += math.Abs(r.Value-r.Gate.Value) / math.Max(math.Abs(r.Gate.Value), 1e-9)
			}
		}
		if violation == 0 {
			return rec.Primary, nil
		}
		return -1 - violation, nil
	}
}

// sweepLatency is the latency of trial e's own live queries (results, or
// the run's record of them when nil), as latency.json records it for the
// sweep (nil: none measured).
func sweepLatency(run *runs.Run, e runs.Entry, results []runs.QueryResult) (*runs.Latency, error) {
	if e.Mode != runs.TrialLive {
		return nil, nil
	}
	if results == nil {
		var err error
		if results, err = run.QueryResults(e.Index); err != nil {
			return nil, fmt.Errorf("trial %q: latency: %w", e.Name, err)
		}
	}
	st := QueryLatency(results)
	if st == nil {
		return nil, nil
	}
	return &runs.Latency{Trials: []runs.TrialLatency{{Index: e.Index, Name: e.Name, Primary: e.Primary, Sweep: st}}}, nil
}
