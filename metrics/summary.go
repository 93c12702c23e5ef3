package metrics

// Summary is the mean scorecard of a set of queries: the means of every
// metric and of the primary score over the judged queries, overall, per
// category and per difficulty (each group's with "primary"), and the
// routing accuracy over the queries that declare an expected routing.
type Summary struct {
	Primary      float64
	Scorecard    map[string]float64
	Categories   map[string]map[string]float64 // nil: no query has a category
	Difficulties map[string]map[string]float64 // nil: no query has a difficulty
	Routing      *float64                      // nil: no query declares an expected routing
	Scored       int                           // judged queries
}

// QueryLabels is what a Summarizer needs to know of a query besides its
// values: the groups it falls in and what it counts for.
type QueryLabels struct {
	Category   string // "" in no category group
	Difficulty string // "" in no difficulty group
	// Judged: the query has judgments. An unjudged query is left out of
	// the means and counts for the routing accuracy only.
	Judged bool
	// Routed: the query declares an expected routing, so it counts for the
	// routing accuracy.
	Routed bool
}
