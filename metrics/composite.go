package metrics

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/fusiontune/fusiontune/internal/plainnum"
)

// Term is one weighted metric of a Composite.
type Term struct {
	Metric Metric
	Weight float64
}

// Composite is the primary score: the weighted sum of its terms' values.
// Weights are used as given (not normalized), so "0.5*NDCG@10+0.5*Recall@20"
// is an average and "NDCG@10+Recall@20" a sum.
type Composite struct {
	Terms []Term
}

// DefaultComposite is the default primary score on the default 0-3 scale:
// DefaultCompositeFor(DefaultMaxGrade).
var DefaultComposite = DefaultCompositeFor(DefaultMaxGrade)

// DefaultCompositeFor is the default primary score for a grade scale whose
// top grade is maxGrade: the mean of NDCG@20, NDCG@50, ERR@10,
// Strong_Precision@10, Strong_Precision@20, Useful_Precision@50,
// Avg_Grade@10/maxGrade (the mean grade normalised by the top grade) and
// Gain_Recall@20. Strong_Precision counts grades >= Options.StrongGrade(),
// so the composite means the same on every scale; on 0-3 it is
// "Avg_Grade@10/3" and grade >= 2, as it always was. maxGrade < 1 means
// DefaultMaxGrade.
func DefaultCompositeFor(maxGrade int) Composite {
	if maxGrade < 1 {
		maxGrade = DefaultMaxGrade
	}
	return equalWeights(
		"NDCG@20", "NDCG@50", "ERR@10", "Strong_Precision@10", "Strong_Precision@20",
		"Useful_Precision@50", "Avg_Grade@10/"+strconv.Itoa(maxGrade), "Gain_Recall@20")
}

// DefaultPrimaryFor is the default primary score for a grade scale whose
// top grade is maxGrade: on binary judgments (maxGrade 1) NDCG@10 — the
// measure BEIR and TREC report for binary collections, which rewards
// every relevant document by how early it comes and which the graded
// composite's terms reduce to or cannot move (a strong or exact grade is
// just "relevant", the mean grade is a precision); on a graded scale
// DefaultCompositeFor(maxGrade).
func DefaultPrimaryFor(maxGrade int) Composite {
	if maxGrade == 1 {
		return Composite{Terms: []Term{{Metric: MustParseMetric("NDCG@10"), Weight: 1}}}
	}
	return DefaultCompositeFor(maxGrade)
}

func equalWeights(names ...string) Composite {
	c := Composite{}
	for _, n := range names {
		c.Terms = append(c.Terms, Term{Metric: MustParseMetric(n), Weight: 1 / float64(len(names))})
	}
	return c
}

// ParseComposite reads a composite written as a sum of weighted metrics:
// "0.5*NDCG@10+0.5*Recall@20"; a term without a weight has weight 1
// ("NDCG@10"). Spaces are allowed around terms.
func ParseComposite(s string) (Composite, error) {
	if strings.TrimSpace(s) == "" {
		return Composite{}, fmt.Errorf("composite %q: empty", s)
	}
	var c Composite
	var errs []error
	for i, term := range strings.Split(s, "+") {
		term = strings.TrimSpace(term)
		w := 1.0
		name := term
		if ws, n, ok := strings.Cut(term, "*"); ok {
			v, ok := plainnum.Float(strings.TrimSpace(ws))
			if !ok {
				errs = append(errs, fmt.Errorf("composite %q: term %d: weight must be a number (got %q)", s, i+1, strings.TrimSpace(ws)))
				continue
			}
			w, name = v, strings.TrimSpace(n)
		}
		m, err := ParseMetric(name)
		if err != nil {
			errs = append(errs, fmt.Errorf("composite %q: term %d: %w", s, i+1, err))
			continue
		}
		c.Terms = append(c.Terms, Term{Metric: m, Weight: w})
	}
	if len(errs) > 0 {
		return Composite{}, errors.Join(errs...)
	}
	return c, c.Validate()
}

// CompositeFromWeights builds a composite from metric name -> weight, terms
// in name order so the result is deterministic.
func CompositeFromWeights(weights map[string]float64) (Composite, error) {
	names := make([]string, 0, len(weights))
	for n := range weights {
		names = append(names, n)
	}
	sort.Strings(names)
	var c Composite
	var errs []error
	for _, n := range names {
		m, err := ParseMetric(n)
		if err != nil {
			errs = append(errs, fmt.Errorf("composite weights[%q]: %w", n, err))
			continue
		}
		c.Terms = append(c.Terms, Term{Metric: m, Weight: weights[n]})
	}
	if len(errs) > 0 {
		return Composite{}, errors.Join(errs...)
	}
	return c, c.Validate()
}

// Validate reports an empty composite, a metric listed twice, and weights
// that are not finite or sum to zero.
func (c Composite) Validate() error {
	if len(c.Terms) == 0 {
		return errors.New("composite: no terms")
	}
	seen := map[string]bool{}
	total, abs := 0.0, 0.0
	for _, t := range c.Terms {
		n := t.Metric.String()
		if seen[n] {
			return fmt.Errorf("composite: %q listed twice", n)
		}
		seen[n] = true
		if math.IsNaN(t.Weight) || math.IsInf(t.Weight, 0) {
			return fmt.Errorf("composite: weight of %q must be finite (got %v)", n, t.Weight)
		}
		total += t.Weight
		abs += math.Abs(t.Weight)
	}
	if total == 0 {
		return errors.New("composite: weights sum to zero")
	}
	if abs > MaxWeightSum {
		// Scores, their differences and variances would overflow to
		// infinity only when a trial is recorded.
		return fmt.Errorf("composite: the weights' absolute values sum to %g, more than %g: scale them down (only their ratios rank trials)", abs, float64(MaxWeightSum))
	}
	return nil
}

// MaxWeightSum bounds the sum of a composite's absolute weights, so that
// its value, differences and variances stay finite.
const MaxWeightSum = 1e6

// String returns the composite in the form ParseComposite reads.
func (c Composite) String() string {
	parts := make([]string, len(c.Terms))
	for i, t := range c.Terms {
		// "1e+07" would split at its "+": write the exponent without it.
		w := strings.Replace(strconv.FormatFloat(t.Weight, 'g', -1, 64), "e+", "e", 1)
		parts[i] = w + "*" + t.Metric.String()
	}
	return strings.Join(parts, "+")
}

// Metrics returns the metrics of the terms, in order.
func (c Composite) Metrics() []Metric {
	out := make([]Metric, len(c.Terms))
	for i, t := range c.Terms {
		out[i] = t.Metric
	}
	return out
}

// Value returns the weighted sum of the terms' values in scores (metric
// name -> value). A missing metric is an error: it would silently count 0.
func (c Composite) Value(scores map[string]float64) (float64, error) {
	v := 0.0
	for _, t := range c.Terms {
		s, ok := scores[t.Metric.String()]
		if !ok {
			return 0, fmt.Errorf("composite: no value for %q", t.Metric.String())
		}
		v += t.Weight * s
	}
	return v, nil
}

// Score computes the composite for one ranking directly.
func (c Composite) Score(ranking []string, j Judgments, o Options) float64 {
	sc := NewScorecard("", c.Metrics()...)
	var buf [16]float64
	vals := sc.ScoreInto(buf[:0], ranking, j, o)
	v := 0.0
	for i, t := range c.Terms {
		v += t.Weight * vals[i]
	}
	return v
}
