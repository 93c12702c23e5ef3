package scoring

import (
	"fmt"
	"slices"
	"strings"

	"github.com/fusiontune/fusiontune/experiments"
	"github.com/fusiontune/fusiontune/metrics"
)

// DefaultReported are the metrics every scorecard reports beside the
// primary score's own terms.
var DefaultReported = []string{"NDCG@10", "MRR@10", "Recall@20", "P@10", "Judged@10"}

// ScaleOptions are the metrics options of a golden set's grade scale:
// its relevant threshold (trec_eval's -l), top grade and the strong and
// exact thresholds. Thresholds equal to the scale's derived defaults are
// left 0, so the 0-3 scale gives metrics.DefaultOptions() exactly.
func ScaleOptions(s experiments.Scale) metrics.Options {
	if s.Max == 0 {
		s = experiments.DefaultScale()
	}
	o := metrics.Options{Threshold: s.Relevant, MaxGrade: s.Max}
	if s.Strong != o.StrongGrade() {
		o.Strong = s.Strong
	}
	if s.Exact != o.ExactGrade() {
		o.Exact = s.Exact
	}
	return o
}

// MetricsScorer scores rankings with a metrics.Scorecard and a composite
// primary score.
type MetricsScorer struct {
	card    metrics.Scorecard
	primary metrics.Composite
	terms   []int // index in card of each composite term
	opts    metrics.Options
	desc    string
	spec    ScorerSpec
}

// ScorerSpec is what a MetricsScorer was built from: NewScorer's
// arguments. A replay collection stores it, so that a replayed trial's
// per-query results can be derived again in a later command.
type ScorerSpec struct {
	Primary string          `json:"primary,omitempty"`
	Metrics []string        `json:"metrics,omitempty"`
	Options metrics.Options `json:"options"`
}

// Spec returns what s was built from.
func (s *MetricsScorer) Spec() ScorerSpec { return s.spec }

// NewScorerFromSpec rebuilds a scorer from its spec.
func NewScorerFromSpec(sp ScorerSpec) (*MetricsScorer, error) {
	return NewScorer(sp.Primary, sp.Metrics, sp.Options)
}

var _ Scorer = (*MetricsScorer)(nil)

// NewScorer builds a scorer. primary is "default" (or "") for the default
// primary of o's scale (metrics.DefaultPrimaryFor(o.MaxGrade): NDCG@10 on
// binary judgments, the graded composite otherwise), else a metric name or
// a weighted sum such as "0.5*NDCG@10+0.5*Recall@20". The scorecard holds
// the reported metrics (DefaultReported plus extra) and the composite's
// terms.
func NewScorer(primary string, extra []string, o metrics.Options) (*MetricsScorer, error) {
	comp := metrics.DefaultPrimaryFor(o.MaxGrade)
	desc := "default composite: mean of " + strings.Join(names(comp.Metrics()), ", ")
	if o.MaxGrade == 1 {
		desc = "default for binary judgments: NDCG@10"
	}
	if primary != "" && primary != "default" {
		c, err := metrics.ParseComposite(primary)
		if err != nil {
			return nil, fmt.Errorf("score.primary: %w", err)
		}
		if err := c.Validate(); err != nil {
			return nil, fmt.Errorf("score.primary: %w", err)
		}
		comp, desc = c, c.String()
	}
	if err := o.Validate(); err != nil {
		return nil, err
	}
	switch {
	case o.MaxGrade == 1:
		if primary != "" && primary != "default" {
			desc += " (binary grades)"
		}
	case o.Threshold != metrics.DefaultThreshold || o.MaxGrade != metrics.DefaultMaxGrade ||
		o.StrongGrade() != metrics.DefaultStrong(metrics.DefaultMaxGrade) || o.ExactGrade() != metrics.DefaultMaxGrade:
		desc += fmt.Sprintf(" (grades 0-%d: relevant >= %d, strong >= %d, exact >= %d)", o.MaxGrade, o.Threshold, o.StrongGrade(), o.ExactGrade())
	}
	var list []string
	seen := map[string]bool{}
	for _, n := range append(append(append([]string{}, DefaultReported...), extra...), names(comp.Metrics())...) {
		m, err := metrics.ParseMetric(n)
		if err != nil {
			return nil, fmt.Errorf("score.metrics: %w", err)
		}
		if !seen[m.String()] {
			seen[m.String()] = true
			list = append(list, m.String())
		}
	}
	card, err := metrics.ParseScorecard("trial", list)
	if err != nil {
		return nil, err
	}
	s := &MetricsScorer{card: card, primary: comp, opts: o, desc: desc,
		spec: ScorerSpec{Primary: primary, Metrics: slices.Clone(extra), Options: o}}
	for _, t := range comp.Terms {
		for i, m := range card.Metrics {
			if m.String() == t.Metric.String() {
				s.terms = append(s.terms, i)
			}
		}
	}
	return s, nil
}

func names(ms []metrics.Metric) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.String()
	}
	return out
}

// Score implements Scorer.
func (s *MetricsScorer) Score(ranking []string, j map[string]int) (map[string]float64, float64) {
	var buf [32]float64
	vals := s.card.ScoreInto(buf[:0], ranking, metrics.Judgments(j), s.opts)
	out := make(map[string]float64, len(vals))
	for i, m := range s.card.Metrics {
		out[m.String()] = vals[i]
	}
	primary := 0.0
	for ti, ci := range s.terms {
		primary += s.primary.Terms[ti].Weight * vals[ci]
	}
	return out, primary
}

// Metrics implements Scorer.
func (s *MetricsScorer) Metrics() []string { return s.card.Names() }

// Describe implements Scorer.
func (s *MetricsScorer) Describe() string { return s.desc }

// PrimaryOf is the composite primary score of metric values in the
// scorecard's order.
func (s *MetricsScorer) PrimaryOf(vals []float64) float64 {
	primary := 0.0
	for ti, ci := range s.terms {
		primary += s.primary.Terms[ti].Weight * vals[ci]
	}
	return primary
}

// Card returns s's scorecard, for callers that score graded rankings on
// the hot path (the replay) without the map Score returns.
func (s *MetricsScorer) Card() *metrics.Scorecard { return &s.card }

// Options returns the scoring options s was built with.
func (s *MetricsScorer) Options() metrics.Options { return s.opts }

// Unvarying says which of the measures configured for s — the primary
// score's terms and the extra reported metrics — no ranking can move on a
// golden set whose highest grade is highest: each counts grades above it
// and is 0 for every trial.
func (s *MetricsScorer) Unvarying(highest int) []string {
	var out []string
	seen := map[string]bool{}
	check := func(m metrics.Metric) {
		name := m.String()
		if seen[name] {
			return
		}
		seen[name] = true
		if g := m.MinGrade(s.opts); g > highest {
			out = append(out, fmt.Sprintf("%s counts grades >= %d and no judgment reaches %d: it is 0 for every trial", name, g, g))
		}
	}
	for _, t := range s.primary.Terms {
		check(t.Metric)
	}
	for _, n := range s.spec.Metrics {
		if m, err := metrics.ParseMetric(n); err == nil {
			check(m)
		}
	}
	return out
}

// HighestGrade is the highest grade any of qs' judgments gives (0 when
// none does).
func HighestGrade(qs []Query) int {
	top := 0
	for _, q := range qs {
		for _, g := range q.Judgments {
			top = max(top, g)
		}
	}
	return top
}
