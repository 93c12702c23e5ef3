package pass

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"sync"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/experiments"
	"github.com/fusiontune/fusiontune/internal/trec"
)

// SearchAll runs every query on s, on GOMAXPROCS goroutines, and returns
// the TREC run of their top k documents with the scores s served (a
// document ranked twice, as passage mode may, keeps its first rank). The
// first failed query fails it. With the embedded engine each query's list
// is in the fusion tie rule's order (trec.Compare), so trec_eval and tune
// eval score exactly the ranking that was served.
func SearchAll(ctx context.Context, s backend.Searcher, queries []experiments.Query, k int, tag string) (trec.Run, error) {
	return searchAll(ctx, queries, tag, func(q string) ([]trec.Result, error) {
		resp, err := s.Search(ctx, backend.SearchRequest{Query: q, K: k})
		if err != nil {
			return nil, err
		}
		var out []trec.Result
		seen := make(map[string]bool, len(resp.Hits))
		for _, h := range resp.Hits {
			if !seen[h.DocID] { // passage mode may rank a document twice
				seen[h.DocID] = true
				out = append(out, trec.Result{DocNo: h.DocID, Score: h.Score})
			}
		}
		return out, nil
	})
}

// SearchRetriever is SearchAll over one retriever's own candidate list
// instead of the fused ranking: each query is searched with explain, and
// the retriever's candidates (its raw scores, before fusion and its
// min_score floor) give the run, each document at its first (best) chunk,
// cut at k documents. The list is as deep as the backend's fusion depth.
// A backend that returns no list for retriever (not enabled, or no
// explain) fails it, naming the retrievers it did return.
func SearchRetriever(ctx context.Context, s backend.Searcher, queries []experiments.Query, k int, tag, retriever string) (trec.Run, error) {
	return searchAll(ctx, queries, tag, func(q string) ([]trec.Result, error) {
		resp, err := s.Search(ctx, backend.SearchRequest{Query: q, K: k, Explain: true})
		if err != nil {
			return nil, err
		}
		list, ok := resp.Candidates[retriever]
		if !ok {
			names := make([]string, 0, len(resp.Candidates))
			for n := range resp.Candidates {
				names = append(names, n)
			}
			slices.Sort(names)
			return nil, fmt.Errorf("retriever %q returned no candidate list (lists returned: %q)", retriever, names)
		}
		var out []trec.Result
		seen := make(map[string]bool, len(list))
		for _, c := range list {
			doc := c.DocID
			if doc == "" {
				doc = c.ID
			}
			if !seen[doc] && len(out) < k {
				seen[doc] = true
				out = append(out, trec.Result{DocNo: doc, Score: c.Score})
			}
		}
		return out, nil
	})
}

// searchAll runs search for every query on GOMAXPROCS goroutines and
// collects the non-empty result lists into a run.
func searchAll(ctx context.Context, queries []experiments.Query, tag string, search func(text string) ([]trec.Result, error)) (trec.Run, error) {
	run := trec.Run{Tag: tag, Queries: make(map[string][]trec.Result, len(queries))}
	results := make([][]trec.Result, len(queries))
	errs := make([]error, len(queries))
	next := make(chan int)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				res, err := search(queries[i].Text)
				if err != nil {
					errs[i] = fmt.Errorf("search: query %q: %w", queries[i].ID, err)
					continue
				}
				results[i] = res
			}
		}()
	}
	for i := range queries {
		if ctx.Err() != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return run, err
	}
	for i, q := range queries {
		if errs[i] != nil {
			return run, errs[i]
		}
		if len(results[i]) > 0 {
			run.Queries[q.ID] = results[i]
		}
	}
	return run, nil
}
