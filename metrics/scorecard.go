package metrics

import (
	"errors"
	"fmt"
	"sync"
)

// Scorecard is a named, ordered set of metrics evaluated together.
type Scorecard struct {
	Name    string
	Metrics []Metric
	depth   int // unique documents needed; -1 for all
}

// NewScorecard returns a scorecard of the given metrics.
func NewScorecard(name string, metrics ...Metric) Scorecard {
	s := Scorecard{Name: name, Metrics: metrics}
	for _, m := range metrics {
		d := m.depth()
		if d < 0 || s.depth < 0 {
			s.depth = -1
		} else {
			s.depth = max(s.depth, d)
		}
	}
	return s
}

// ParseScorecard parses metric names (see ParseMetric) into a scorecard,
// reporting every bad name at once. Duplicates are an error.
func ParseScorecard(name string, metrics []string) (Scorecard, error) {
	var ms []Metric
	var errs []error
	seen := map[string]bool{}
	for i, n := range metrics {
		m, err := ParseMetric(n)
		if err != nil {
			errs = append(errs, fmt.Errorf("scorecard %q: metrics[%d]: %w", name, i, err))
			continue
		}
		if seen[m.String()] {
			errs = append(errs, fmt.Errorf("scorecard %q: metrics[%d]: %q listed twice", name, i, m.String()))
			continue
		}
		seen[m.String()] = true
		ms = append(ms, m)
	}
	if len(errs) > 0 {
		return Scorecard{}, errors.Join(errs...)
	}
	return NewScorecard(name, ms...), nil
}

// Names returns the canonical names of the metrics, in order.
func (s Scorecard) Names() []string {
	out := make([]string, len(s.Metrics))
	for i, m := range s.Metrics {
		out[i] = m.String()
	}
	return out
}

var preparedPool = sync.Pool{New: func() any { return new(prepared) }}

// Score evaluates every metric for one ranking and returns metric name ->
// value. It walks the ranking once. Safe for concurrent use.
func (s Scorecard) Score(ranking []string, j Judgments, o Options) map[string]float64 {
	vals := s.ScoreInto(make([]float64, len(s.Metrics)), ranking, j, o)
	out := make(map[string]float64, len(vals))
	for i, m := range s.Metrics {
		out[m.String()] = vals[i]
	}
	return out
}

// ScoreInto is Score without the map: it writes the value of s.Metrics[i]
// to dst[i] (dst grows if short) and returns dst.
func (s Scorecard) ScoreInto(dst []float64, ranking []string, j Judgments, o Options) []float64 {
	p := preparedPool.Get().(*prepared)
	p.own.reset(j, o)
	dst = s.score(dst, ranking, &p.own, p)
	preparedPool.Put(p)
	return dst
}

// ScoreQuery is ScoreInto for a prepared Query: the fast path for scoring
// many rankings of the same query.
func (s Scorecard) ScoreQuery(dst []float64, ranking []string, q *Query) []float64 {
	p := preparedPool.Get().(*prepared)
	dst = s.score(dst, ranking, q, p)
	preparedPool.Put(p)
	return dst
}

func (s Scorecard) score(dst []float64, ranking []string, q *Query, p *prepared) []float64 {
	if cap(dst) < len(s.Metrics) {
		dst = make([]float64, len(s.Metrics))
	}
	dst = dst[:len(s.Metrics)]
	depth := s.depth
	if depth == 0 && len(s.Metrics) > 0 { // a Scorecard literal, not built by NewScorecard
		depth = NewScorecard("", s.Metrics...).depth
	}
	p.prepare(ranking, q, depth)
	for i, m := range s.Metrics {
		dst[i] = p.score(m)
	}
	p.q = nil
	return dst
}
