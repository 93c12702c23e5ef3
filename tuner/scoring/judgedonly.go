package scoring

import (
	"github.com/fusiontune/fusiontune/metrics"
	"github.com/fusiontune/fusiontune/runs"
)

// JudgedOnlyMetrics returns the metrics of names that get a judged-only
// (condensed-list) value: every metric with a cutoff of 1..TopRecorded
// (the recorded top hits are what the condensed list is cut from) except
// Judged@k, which is 1 on a condensed list by definition.
func JudgedOnlyMetrics(names []string) []string {
	var out []string
	for _, n := range names {
		m, err := metrics.ParseMetric(n)
		if err != nil || m.Kind == metrics.Judged || m.K < 1 || m.K > TopRecorded {
			continue
		}
		out = append(out, m.String())
	}
	return out
}

// Judgments is a golden set's judgments by query: query -> doc -> grade.
type Judgments map[string]map[string]int

// JudgmentsOf collects the judgments of queries.
func JudgmentsOf(queries []Query) Judgments {
	j := make(Judgments, len(queries))
	for _, q := range queries {
		j[q.ID] = q.Judgments
	}
	return j
}

// RecordedScores is a trial scored again from its recorded results.
type RecordedScores struct {
	Scorecard  map[string]float64
	Primary    float64
	JudgedOnly map[string]float64
	// Queries is how many queries the means are over.
	Queries int
}

// ScoreRecorded scores a trial's recorded results under judgments: each
// query's recorded top hits (TopRecorded of them; a metric deeper than
// that sees nothing beyond) with sc, and the condensed list of those hits
// (metrics.Condense) for the judgedOnly metrics. The means are over the
// queries that have judgments and did not fail; a failed query scored
// under eval.on_query_error zero counts as 0 on every measure.
func ScoreRecorded(results []runs.QueryResult, judgments Judgments, sc Scorer, judgedOnly []string) RecordedScores {
	return scoreRecorded(results, judgments, sc, judgedOnly, true)
}

// JudgedOnlyOf is ScoreRecorded's JudgedOnly values, without scoring the
// scorecard (the same sums in the same order: the same values).
func JudgedOnlyOf(results []runs.QueryResult, judgments Judgments, sc Scorer, judgedOnly []string) map[string]float64 {
	return scoreRecorded(results, judgments, sc, judgedOnly, false).JudgedOnly
}

// scoreRecorded is ScoreRecorded; without full, only its JudgedOnly
// values and Queries.
func scoreRecorded(results []runs.QueryResult, judgments Judgments, sc Scorer, judgedOnly []string, full bool) RecordedScores {
	out := RecordedScores{Scorecard: map[string]float64{}, JudgedOnly: map[string]float64{}}
	for _, m := range sc.Metrics() {
		out.Scorecard[m] = 0
	}
	for _, m := range judgedOnly {
		out.JudgedOnly[m] = 0
	}
	for _, r := range results {
		j := judgments[r.QueryID]
		if len(j) == 0 {
			continue
		}
		if r.Error != "" {
			if r.OnError == "zero" {
				out.Queries++
			}
			continue
		}
		ranking := make([]string, len(r.Top))
		for i, d := range r.Top {
			ranking[i] = d.DocID
		}
		if full {
			scores, primary := sc.Score(ranking, j)
			for m, v := range scores {
				out.Scorecard[m] += v
			}
			out.Primary += primary
		}
		if len(judgedOnly) > 0 {
			cond, _ := sc.Score(metrics.Condense(ranking, metrics.Judgments(j)), j)
			for _, m := range judgedOnly {
				out.JudgedOnly[m] += cond[m]
			}
		}
		out.Queries++
	}
	if out.Queries > 0 {
		n := float64(out.Queries)
		for m := range out.Scorecard {
			out.Scorecard[m] /= n
		}
		for m := range out.JudgedOnly {
			out.JudgedOnly[m] /= n
		}
		out.Primary /= n
	}
	return out
}
