package tuner

import (
	"context"
	"fmt"
	"runtime"
	"sync"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/experiments"
	"github.com/fusiontune/fusiontune/internal/trec"
)

// SearchAll runs every query on s, on GOMAXPROCS goroutines, and returns
// the TREC run of their top k documents (a document ranked twice, as
// passage mode may, keeps its first rank). The first failed query fails it.
func SearchAll(ctx context.Context, s backend.Searcher, queries []experiments.Query, k int, tag string) (trec.Run, error) {
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
				resp, err := s.Search(ctx, backend.SearchRequest{Query: queries[i].Text, K: k})
				if err != nil {
					errs[i] = fmt.Errorf("search: query %q: %w", queries[i].ID, err)
					continue
				}
				seen := make(map[string]bool, len(resp.Hits))
				for _, h := range resp.Hits {
					if !seen[h.DocID] { // passage mode may rank a document twice
						seen[h.DocID] = true
						results[i] = append(results[i], trec.Result{DocNo: h.DocID, Score: h.Score})
					}
				}
			}
		}()
	}
	for i := range queries {
		next <- i
	}
	close(next)
	wg.Wait()
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
