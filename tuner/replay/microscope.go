package replay

import (
	"github.com/fusiontune/fusiontune/backend/fusion"
	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner/pass"
	"github.com/fusiontune/fusiontune/tuner/scoring"
)

// ReplayLists fuses one query's candidate lists (each retriever's list,
// as a search with explain returns them) under s and scores the ranking
// exactly as a replayed trial records that query: the same replayer,
// fusion rule (fusion.Fuser.HitsInto with floors and min_score), cut and
// scorer, so the top hits, grades, label sequence and scores equal the
// per-query result a replay of a trial with settings s records. k is the
// hits per query a live run asks for (0: DefaultDepth). It is what `tune
// ui`'s query microscope re-fuses with.
func ReplayLists(q scoring.Query, lists map[string][]fusion.Candidate, s fusion.Settings, sc scoring.Scorer, k int) runs.QueryResult {
	if k <= 0 {
		k = pass.DefaultDepth
	}
	rp := NewReplayer(sc, k)
	rq := rp.Prepare(q, fusion.Prepare(lists))
	r := runs.QueryResult{QueryID: q.ID, Category: q.Category, Expected: q.ExpectedRouting, Unjudged: len(q.Judgments) == 0}
	rp.Record(&r, &rq, s)
	return r
}
