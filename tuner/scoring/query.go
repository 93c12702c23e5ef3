package scoring

import "github.com/fusiontune/fusiontune/experiments"

// Query is one evaluated query: the golden set's query with its judgments
// resolved to document ids.
type Query struct {
	ID              string
	Text            string
	Category        string
	Difficulty      string
	ExpectedRouting string
	// Judgments maps document ids to grades. A query without judgments is
	// scored on routing only and left out of the metric means.
	Judgments map[string]int
	// Open are the query's doc_id_pattern judgments without a corpus
	// (experiments.OpenPattern): each is judged in Judgments under its
	// experiments.PatternKey, and the first returned id matching it takes
	// that key in the ranking scored.
	Open []experiments.OpenPattern
}

// OpenRanking rewrites ranking for q's open patterns: the first id that
// matches a pattern (the highest-graded pattern when several match) is
// replaced by the pattern's key; an id matching only patterns already
// found stays as it is, unjudged. grades holds the grade each rewritten
// position takes, for the recorded top.
func OpenRanking(q Query, ranking []string) (out []string, grades map[int]int) {
	if len(q.Open) == 0 {
		return ranking, nil
	}
	out = make([]string, len(ranking))
	grades = map[int]int{}
	found := make([]bool, len(q.Open))
	for i, id := range ranking {
		out[i] = id
		best := -1
		for k, p := range q.Open {
			if !found[k] && p.Re.MatchString(id) && (best < 0 || p.Grade > q.Open[best].Grade) {
				best = k
			}
		}
		if best >= 0 {
			found[best] = true
			out[i] = experiments.PatternKey(q.Open[best].Pattern)
			grades[i] = q.Open[best].Grade
		}
	}
	return out, grades
}

// Scorer scores one ranking against its judgments: every scorecard metric
// by name, and the primary score.
type Scorer interface {
	Score(ranking []string, judgments map[string]int) (scores map[string]float64, primary float64)
	// Metrics names the scorecard's metrics in display order.
	Metrics() []string
	// Describe says what the primary score is, e.g. its formula.
	Describe() string
}
