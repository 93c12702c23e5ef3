package tuner

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
