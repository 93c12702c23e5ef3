package tuner

import (
	"maps"
	"slices"
)

// summarize sums up a batch's per-query results: the means of every
// metric and of the primary score over the judged queries, per category
// and per difficulty, and the routing accuracy.
func summarize(queries []Query, b Batch) Summary {
	keys := map[string]bool{}
	for _, r := range b.Results {
		for k := range r.Scores {
			keys[k] = true
		}
	}
	names := slices.Sorted(maps.Keys(keys))
	sm := newSummarizer(queries, names)
	vals := make([]float64, len(names))
	has := make([]bool, len(names))
	for i := range queries {
		r := &b.Results[i]
		for j, n := range names {
			vals[j], has[j] = r.Scores[n]
		}
		sm.add(i, vals, has, r.Primary, r.Error == "" && r.Routing == queries[i].ExpectedRouting)
	}
	return sm.summary()
}

// summarizer accumulates per-query metric values, given as slices in the
// order of its metric names, into a Summary; the replay feeds it without
// building a per-query map. Sums run in query order, so the means are the
// same bits whichever way the values arrive.
type summarizer struct {
	queries        []Query
	names          []string
	all            sumAcc
	cats, diffs    map[string]*sumAcc
	routed, routOK int
}

// sumAcc is the running sums of one group of queries.
type sumAcc struct {
	sums    []float64
	has     []bool // a value of the metric was seen
	primary float64
	n       int
}

func newSummarizer(queries []Query, names []string) *summarizer {
	return &summarizer{queries: queries, names: names, cats: map[string]*sumAcc{}, diffs: map[string]*sumAcc{}}
}

// add counts query i: its metric values (has[j]: vals[j] was recorded;
// nil: all recorded; a failed query records none), its primary score and
// whether its routing matched the expected one.
func (s *summarizer) add(i int, vals []float64, has []bool, primary float64, routedOK bool) {
	q := &s.queries[i]
	if q.ExpectedRouting != "" {
		s.routed++
		if routedOK {
			s.routOK++
		}
	}
	if len(q.Judgments) == 0 {
		return
	}
	s.all.add(len(s.names), vals, has, primary)
	if q.Category != "" {
		s.group(s.cats, q.Category).add(len(s.names), vals, has, primary)
	}
	if q.Difficulty != "" {
		s.group(s.diffs, q.Difficulty).add(len(s.names), vals, has, primary)
	}
}

func (s *summarizer) group(m map[string]*sumAcc, key string) *sumAcc {
	a := m[key]
	if a == nil {
		a = &sumAcc{}
		m[key] = a
	}
	return a
}

func (a *sumAcc) add(n int, vals []float64, has []bool, primary float64) {
	if a.sums == nil {
		a.sums, a.has = make([]float64, n), make([]bool, n)
	}
	for j, v := range vals {
		if has == nil || has[j] {
			a.sums[j] += v
			a.has[j] = true
		}
	}
	a.primary += primary
	a.n++
}

// mean is the scorecard of a: every metric seen, and "primary".
func (s *summarizer) mean(a *sumAcc) map[string]float64 {
	out := make(map[string]float64, len(s.names)+1)
	for j, name := range s.names {
		if a.has[j] {
			out[name] = a.sums[j] / float64(a.n)
		}
	}
	out["primary"] = a.primary / float64(a.n)
	return out
}

func (s *summarizer) summary() Summary {
	out := Summary{Scorecard: map[string]float64{}, Scored: s.all.n}
	if s.all.n > 0 {
		out.Scorecard = s.mean(&s.all)
		out.Primary = out.Scorecard["primary"]
		delete(out.Scorecard, "primary")
	}
	groups := func(m map[string]*sumAcc) map[string]map[string]float64 {
		if len(m) == 0 {
			return nil
		}
		out := make(map[string]map[string]float64, len(m))
		for k, a := range m {
			out[k] = s.mean(a)
		}
		return out
	}
	out.Categories, out.Difficulties = groups(s.cats), groups(s.diffs)
	if s.routed > 0 {
		v := float64(s.routOK) / float64(s.routed)
		out.Routing = &v
	}
	return out
}
