package main

import (
	"math"
	"time"

	"github.com/fusiontune/fusiontune/backend/engine"
	"github.com/fusiontune/fusiontune/metrics/stats"
)

// The ranges of tune's numeric settings, checked by validate before any
// work starts (README "Settings" lists them). The upper bounds keep a
// typing slip (1e12) from taking the process down: each is far above any
// useful value.
const (
	maxConcurrency  = 256
	maxRetries      = 10
	maxEvalK        = engine.MaxDepth
	maxEvalTimeout  = time.Hour
	maxStartTimeout = time.Hour
	maxStopTimeout  = 10 * time.Minute
	maxSettle       = 10 * time.Minute
	// maxTrialCount bounds the settings that count trials
	// (eval.failure_budget, eval.max_consecutive_failures).
	maxTrialCount = 1_000_000
	// maxQueryCount bounds the settings that count queries or pairs
	// (stats.min_category_queries, stats.min_nonzero_pairs).
	maxQueryCount = 1_000_000
	// maxTolerance bounds promotion.tolerance: scores are at most 1 in
	// the metrics' units.
	maxTolerance = 1.0
)

// ranges checks numbers against their ranges for validate; add reports a
// problem at a field.
type ranges struct {
	add func(field, format string, args ...any)
}

// ints checks lo <= v <= hi.
func (r ranges) ints(field string, v, lo, hi int, note string) {
	if v < lo || v > hi {
		r.add(field, "must be in [%d, %d]%s (got %d)", lo, hi, note, v)
	}
}

// duration checks 0 < v <= hi (or 0 <= v with zeroOK).
func (r ranges) duration(field string, v, hi time.Duration, zeroOK bool) {
	switch {
	case v < 0 || v == 0 && !zeroOK:
		op := ">"
		if zeroOK {
			op = ">="
		}
		r.add(field, "must be %s 0 and at most %s (got %s)", op, hi, v)
	case v > hi:
		r.add(field, "must be at most %s (got %s)", hi, v)
	}
}

// open01 checks 0 < v < 1.
func (r ranges) open01(field string, v float64) {
	if !(v > 0 && v < 1) {
		r.add(field, "must be in (0, 1) (got %g)", v)
	}
}

// closed checks lo <= v <= hi and v finite.
func (r ranges) closed(field string, v, lo, hi float64) {
	if math.IsNaN(v) || math.IsInf(v, 0) || v < lo || v > hi {
		r.add(field, "must be a number in [%g, %g] (got %g)", lo, hi, v)
	}
}

// rangeEvalAndBackend checks the numeric eval.* and backend.* settings.
func (s *settings) rangeEvalAndBackend(r ranges) {
	e := s.Eval
	r.ints("eval.concurrency", e.Concurrency, 1, maxConcurrency, "")
	r.duration("eval.timeout", e.Timeout, maxEvalTimeout, false)
	r.ints("eval.retries", e.Retries, 0, maxRetries, "")
	r.ints("eval.k", e.K, 1, maxEvalK, "")
	r.ints("eval.failure_budget", e.FailureBudget, 0, maxTrialCount, " (0: no budget)")
	r.ints("eval.max_consecutive_failures", e.MaxConsecutiveFailures, 0, maxTrialCount, " (0: never stop early)")
	b := s.Backend
	r.duration("backend.start_timeout", b.StartTimeout, maxStartTimeout, false)
	r.duration("backend.stop_timeout", b.StopTimeout, maxStopTimeout, false)
	r.duration("backend.settle", b.Settle, maxSettle, true)
}

// rangeStats checks the numeric stats.* and promotion.* settings.
func (s *settings) rangeStats(r ranges) {
	st := s.Stats
	r.open01("stats.alpha", st.Alpha)
	r.open01("stats.level", st.Level)
	r.ints("stats.resamples", st.Resamples, stats.MinResamples, stats.MaxResamples, "")
	r.ints("stats.permutations", st.Permutations, stats.MinPermutations, stats.MaxPermutations, "")
	r.ints("stats.min_category_queries", st.MinCategoryQueries, 2, maxQueryCount, "")
	r.ints("stats.min_nonzero_pairs", st.MinNonZeroPairs, 1, maxQueryCount, "")
	r.closed("promotion.tolerance", s.Promotion.Tolerance, 0, maxTolerance)
}
