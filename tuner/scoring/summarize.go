package scoring

import (
	"maps"
	"slices"

	"github.com/fusiontune/fusiontune/metrics"
	"github.com/fusiontune/fusiontune/runs"
)

// Summary is a metrics.Summary with the label counts of the queries'
// first results (runs.TopLabels; nil when no judged query returned
// results).
type Summary struct {
	metrics.Summary
	TopLabels *runs.TopLabels
}

// Summarize sums up a trial's per-query results (in query order) with a metrics.Summarizer:
// the means of every metric and of the primary score over the judged
// queries, per category and per difficulty, the routing accuracy and the
// label counts of the recorded tops.
func Summarize(queries []Query, results []runs.QueryResult) Summary {
	keys := map[string]bool{}
	for _, r := range results {
		for k := range r.Scores {
			keys[k] = true
		}
	}
	names := slices.Sorted(maps.Keys(keys))
	sm := NewSummarizer(queries, names)
	vals := make([]float64, len(names))
	has := make([]bool, len(names))
	for i := range queries {
		r := &results[i]
		if r.OnError == QueryErrorSkip {
			continue
		}
		for j, n := range names {
			vals[j], has[j] = r.Scores[n]
			if r.OnError == QueryErrorZero {
				vals[j], has[j] = 0, true
			}
		}
		sm.Add(i, vals, has, r.Primary, r.Error == "" && r.Routing == queries[i].ExpectedRouting)
	}
	return Summary{Summary: sm.Summary(), TopLabels: runs.CountTopLabels(results)}
}

// Summarizer is a metrics.Summarizer over a list of queries: add takes a
// query by its index and passes its labels along, so that the replay's hot
// path neither copies the queries nor builds their labels up front.
type Summarizer struct {
	queries []Query
	sm      *metrics.Summarizer
	labels  *runs.TopLabels // nil until AddTop counts a query
}

// NewSummarizer returns a summarizer of the metrics names over queries.
func NewSummarizer(queries []Query, names []string) *Summarizer {
	return &Summarizer{queries: queries, sm: metrics.NewSummarizer(names)}
}

// Add counts query i (see metrics.Summarizer.Add).
func (s *Summarizer) Add(i int, vals []float64, has []bool, primary float64, routedOK bool) {
	q := &s.queries[i]
	s.sm.Add(metrics.QueryLabels{Category: q.Category, Difficulty: q.Difficulty,
		Judged: len(q.Judgments) > 0, Routed: q.ExpectedRouting != ""}, vals, has, primary, routedOK)
}

// Summary returns the means of the queries added so far.
func (s *Summarizer) Summary() metrics.Summary { return s.sm.Summary() }

// AddTop counts the first results of query i, which returned results, by
// grade in rank order (grade < 0: unjudged) in the label counts; an
// unjudged query is not counted.
func (s *Summarizer) AddTop(i int, grades []int) {
	if len(s.queries[i].Judgments) == 0 {
		return
	}
	if s.labels == nil {
		s.labels = runs.NewTopLabels()
	}
	s.labels.Add(grades)
}

// TopLabels returns the label counts AddTop made (nil: none).
func (s *Summarizer) TopLabels() *runs.TopLabels { return s.labels }
