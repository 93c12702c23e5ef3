package judging

import (
	"context"
	"fmt"

	"github.com/fusiontune/fusiontune/tuner/judging/harvest"
	"github.com/fusiontune/fusiontune/tuner/judging/labels"
	"github.com/fusiontune/fusiontune/tuner/judging/pool"
)

// PoolHarvested pools the answers production served to the queries a
// harvest added (r.Sampled): each logged search of such a query is one
// ranking (source "log:REQUEST_ID", its results in logged order), so a
// document shown by many searches, or high, comes first (package pool's
// priority). Pairs judged[q][d] holds are left out. The result is a
// judging pool like `tune judge pool`'s, for `tune judge run`, `tune judge
// export` or `tune ui --pool`: judging a harvested set needs no run.
func PoolHarvested(r *harvest.Result, dataset string, depth int, judged map[string]map[string]bool) (*pool.Pool, error) {
	byRequest := make(map[string]int, len(r.Log.Searches))
	for i, s := range r.Log.Searches {
		byRequest[s.RequestID] = i
	}
	var rankings []pool.Ranking
	for _, q := range r.Sampled {
		for _, id := range q.Requests {
			i, ok := byRequest[id]
			if !ok {
				return nil, fmt.Errorf("harvest pool: query %s: search %q is not in the log", q.ID, id)
			}
			s := r.Log.Searches[i]
			docs := make([]string, 0, len(s.Results))
			for _, res := range s.Results {
				docs = append(docs, res.ID)
			}
			rankings = append(rankings, pool.Ranking{Source: "log:" + id, Query: q.ID, Docs: docs})
		}
	}
	return pool.Build(dataset, rankings, func(q, d string) bool { return judged[q][d] }, depth)
}

// JudgedExceptImplicit returns the (query, document) pairs of dataset the
// label store at url holds a label for from any source but implicit
// (clicks are what a harvest's pool is to be checked against, so they do
// not count as judged). An absent store holds none.
func JudgedExceptImplicit(ctx context.Context, url, dataset string) (map[string]map[string]bool, error) {
	ls, err := latestLabels(ctx, url, dataset)
	if err != nil {
		return nil, err
	}
	out := map[string]map[string]bool{}
	for _, l := range ls {
		if l.Source == labels.SourceImplicit {
			continue
		}
		if out[l.Query] == nil {
			out[l.Query] = map[string]bool{}
		}
		out[l.Query][l.Doc] = true
	}
	return out, nil
}
