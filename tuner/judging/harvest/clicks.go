package harvest

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/fusiontune/fusiontune/internal/querylog"
)

// Click-model limits.
const (
	// DefaultMinExpected is the expected clicks a (query, document) pair
	// needs before the click model grades it.
	DefaultMinExpected = 1.0
	// MaxMinExpected bounds ClickOptions.MinExpected.
	MaxMinExpected = 1000.0
)

// ClickOptions configures Implicit.
type ClickOptions struct {
	// MinExpected is the expected clicks (see Implicit) below which a pair
	// is not graded: too few impressions to tell. (0, MaxMinExpected];
	// 0 means DefaultMinExpected.
	MinExpected float64
	// Relevant, Strong and Exact are the grades of the scale the judgments
	// are given on (experiments.Scale's thresholds; 1, 2, 3 on 0-3).
	Relevant, Strong, Exact int
}

// Validate returns the options' problems as "field: what was expected".
func (o ClickOptions) Validate() []string {
	var out []string
	if o.MinExpected < 0 || o.MinExpected > MaxMinExpected || math.IsNaN(o.MinExpected) {
		out = append(out, fmt.Sprintf("min_expected: must be in (0, %g] (got %v)", MaxMinExpected, o.MinExpected))
	}
	if !(0 < o.Relevant && o.Relevant <= o.Strong && o.Strong <= o.Exact) {
		out = append(out, fmt.Sprintf("grades: want 0 < relevant <= strong <= exact (got %d, %d, %d)", o.Relevant, o.Strong, o.Exact))
	}
	return out
}

// Judgment is an implicit judgment: a grade inferred from clicks.
type Judgment struct {
	Query string // the harvested query's id (QueryID)
	Doc   string
	Grade int
	// COEC is clicks over expected clicks; Clicks and Expected are its
	// two sides.
	COEC, Expected float64
	Clicks         int
	Impressions    int
	// Confidence is Expected/(Expected+1): 0.5 at one expected click, 0.9
	// at nine. A heuristic, documented as such: more impressions at
	// well-clicked positions give more evidence.
	Confidence float64
}

// Implicit grades (query, document) pairs from logged impressions and
// clicks with the COEC click model (clicks over expected clicks; Zhang
// and Jones 2007, Chapelle and Zhang 2009):
//
//   - every result a search returned is an impression at its 1-based
//     position (the first k when the search logged k);
//   - ctr(p) is the share of impressions at position p that were clicked,
//     over the whole log: the position's prior;
//   - for a pair, Clicks counts the searches of the query (grouped by
//     normalised text, as Group does) in which the document was clicked,
//     and Expected sums ctr(p) over its impressions;
//   - COEC = Clicks / Expected: 1 is as clicked as an average result at
//     the same positions, above 1 more, below 1 less.
//
// A pair with Expected below MinExpected is not graded. Grades: COEC
// below 0.5 is 0, [0.5, 1) Relevant, [1, 2) Strong, 2 and above Exact.
// "Research" feedback counts as no click. Judgments come sorted by query
// id and document id.
func Implicit(log *querylog.Log, opt ClickOptions) ([]Judgment, error) {
	if p := opt.Validate(); len(p) > 0 {
		return nil, fmt.Errorf("click model: %s", p[0])
	}
	if opt.MinExpected == 0 {
		opt.MinExpected = DefaultMinExpected
	}
	clicked := clickedDocs(log.Feedback)
	imp, clk := positionPriors(log.Searches, clicked)
	type pair struct{ q, d string }
	type acc struct {
		clicks, imps int
		expected     float64
	}
	pairs := map[pair]*acc{}
	for _, s := range log.Searches {
		norm := Normalize(s.Query)
		if norm == "" {
			continue
		}
		q := QueryID(norm)
		for p, r := range shown(s) {
			k := pair{q, r.ID}
			a := pairs[k]
			if a == nil {
				a = &acc{}
				pairs[k] = a
			}
			a.imps++
			a.expected += float64(clk[p]) / float64(imp[p])
			if clicked[s.RequestID][r.ID] {
				a.clicks++
			}
		}
	}
	var out []Judgment
	for k, a := range pairs {
		if a.expected < opt.MinExpected {
			continue
		}
		coec := float64(a.clicks) / a.expected
		out = append(out, Judgment{Query: k.q, Doc: k.d, Grade: opt.grade(coec), COEC: coec, Clicks: a.clicks,
			Expected: a.expected, Impressions: a.imps, Confidence: a.expected / (a.expected + 1)})
	}
	slices.SortFunc(out, func(a, b Judgment) int {
		return cmp.Or(cmp.Compare(a.Query, b.Query), cmp.Compare(a.Doc, b.Doc))
	})
	return out, nil
}

// clickedDocs is, per request id, the documents clicked in its results
// (other feedback counts as no click).
func clickedDocs(feedback []querylog.Event) map[string]map[string]bool {
	clicked := map[string]map[string]bool{}
	for _, f := range feedback {
		if f.Action != querylog.ActionClick {
			continue
		}
		if clicked[f.RequestID] == nil {
			clicked[f.RequestID] = map[string]bool{}
		}
		clicked[f.RequestID][f.DocID] = true
	}
	return clicked
}

// positionPriors counts, per position (0 first) over every search, the
// results shown there (imp) and those of them clicked (clk): ctr(p) is
// clk[p] / imp[p].
func positionPriors(searches []querylog.Event, clicked map[string]map[string]bool) (imp, clk []int) {
	for _, s := range searches {
		for p, r := range shown(s) {
			for len(imp) <= p {
				imp, clk = append(imp, 0), append(clk, 0)
			}
			imp[p]++
			if clicked[s.RequestID][r.ID] {
				clk[p]++
			}
		}
	}
	return imp, clk
}

func (o ClickOptions) grade(coec float64) int {
	switch {
	case coec >= 2:
		return o.Exact
	case coec >= 1:
		return o.Strong
	case coec >= 0.5:
		return o.Relevant
	}
	return 0
}

// shown is the part of a search's results that was shown: the first K
// when K was logged.
func shown(s querylog.Event) []querylog.Result {
	if s.K > 0 && s.K < len(s.Results) {
		return s.Results[:s.K]
	}
	return s.Results
}
