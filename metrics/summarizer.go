package metrics

// Summarizer accumulates per-query metric values, given as slices in the
// order of its metric names, into a Summary; the tuner's replay feeds it
// without building a per-query map. Sums run in the order of the Add
// calls, so the means are the same bits whichever way the values arrive
// (from per-query results or straight from the replay).
type Summarizer struct {
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

// NewSummarizer returns a Summarizer of the metrics named names, the
// order of the values Add takes. It keeps names.
func NewSummarizer(names []string) *Summarizer {
	return &Summarizer{names: names, cats: map[string]*sumAcc{}, diffs: map[string]*sumAcc{}}
}

// Add counts a query labelled q: its metric values (has[j]: vals[j] was
// recorded; nil: all recorded; a failed query records none), its primary
// score and whether its routing matched the expected one. A mean divides
// by every judged query of its group, so a value not recorded counts as 0
// in it; a metric no query of a group recorded is left out of the group's
// scorecard.
func (s *Summarizer) Add(q QueryLabels, vals []float64, has []bool, primary float64, routedOK bool) {
	if q.Routed {
		s.routed++
		if routedOK {
			s.routOK++
		}
	}
	if !q.Judged {
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

func (s *Summarizer) group(m map[string]*sumAcc, key string) *sumAcc {
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
func (s *Summarizer) mean(a *sumAcc) map[string]float64 {
	out := make(map[string]float64, len(s.names)+1)
	for j, name := range s.names {
		if a.has[j] {
			out[name] = a.sums[j] / float64(a.n)
		}
	}
	out["primary"] = a.primary / float64(a.n)
	return out
}

// Summary returns the means of the queries added so far. Without judged
// queries its Scorecard is empty and its Primary 0.
func (s *Summarizer) Summary() Summary {
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
