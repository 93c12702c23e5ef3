package settings

import (
	"math"
	"time"

	"github.com/fusiontune/fusiontune/backend/engine"
)

// The ranges of tune's numeric settings, checked by Validate before any
// work starts (docs/reference/settings.md lists them; refdoc's test checks
// each at both ends). The upper bounds keep a typing slip (1e12) from
// taking the process down: each is far above any useful value.
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

// ranges checks numbers against their ranges for Validate; add reports a
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
