package scoring

import (
	"cmp"
	"slices"

	"github.com/fusiontune/fusiontune/runs"
)

// Ceiling scores the ideal ranking of every judged query with sc: the
// judged documents by grade, highest first (ties by id), averaged over the
// queries as a trial's scores are (summarize). No trial can beat it; a
// composite of metrics the judgments cannot fill (P@20 with three judged
// documents a query) stays well below 1 even there, which the ceiling
// shows. Its Judged@k is the reachable coverage, min(k, judged)/k per
// query averaged. Only the judged queries count, as for a trial.
func Ceiling(queries []Query, sc Scorer) runs.Ceiling {
	results := make([]runs.QueryResult, len(queries))
	for i, q := range queries {
		results[i].Routing = q.ExpectedRouting // routing is not the ceiling's concern
		if len(q.Judgments) == 0 {
			continue
		}
		results[i].Scores, results[i].Primary = sc.Score(IdealRanking(q.Judgments), q.Judgments)
	}
	s := Summarize(queries, results)
	return runs.Ceiling{Primary: s.Primary, Scorecard: s.Scorecard, Categories: s.Categories}
}

// IdealRanking lists the judged documents of j by grade, highest first,
// ties by id.
func IdealRanking(j map[string]int) []string {
	ids := make([]string, 0, len(j))
	for id := range j {
		ids = append(ids, id)
	}
	slices.SortFunc(ids, func(a, b string) int {
		if c := cmp.Compare(j[b], j[a]); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	return ids
}
