package pass

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner/scoring"
)

// evaluateBatch is evaluate for the replay's passes (its collections and
// verification passes), which measure no latency: when s is a
// backend.BatchSearcher the queries go in one batch, each answer scored
// (and handed to o.OnResponse) as it arrives, and only the queries the
// batch did not answer — a failed search, or a batch cut short — are run
// again one by one through evaluate, with its retries, timeouts and
// error records; a backend without batch search is searched per query
// throughout. A batch that fails for another reason than
// backend.ErrBatchUnsupported is said on log. A query's LatencyMS is the
// backend's own time for its search.
func evaluateBatch(ctx context.Context, s backend.Searcher, queries []scoring.Query, sc scoring.Scorer, o EvalOptions, requestPrefix string, log io.Writer, onDone func(done int)) (Batch, error) {
	bs, ok := s.(backend.BatchSearcher)
	if !ok || len(queries) == 0 {
		return evaluate(ctx, s, queries, sc, o, requestPrefix, onDone)
	}
	o = o.WithDefaults()
	reqs := make([]backend.SearchRequest, len(queries))
	for i, q := range queries {
		reqs[i] = backend.SearchRequest{Query: q.Text, K: o.K, RequestID: requestPrefix + "/" + q.ID, Explain: o.Explain,
			Timings: o.Timings, Fusion: o.Fusion, Variants: o.Variants}
	}
	results := make([]runs.QueryResult, len(queries))
	answered := make([]bool, len(queries))
	done := 0
	err := bs.SearchBatch(ctx, reqs, func(a backend.BatchAnswer) {
		if a.Err != nil {
			return // run again alone below
		}
		q := queries[a.Index]
		r := runs.QueryResult{QueryID: q.ID, Category: q.Category, Expected: q.ExpectedRouting, RequestID: reqs[a.Index].RequestID,
			Unjudged: len(q.Judgments) == 0, LatencyMS: backend.Millis(a.Elapsed)}
		if o.OnResponse != nil {
			o.OnResponse(q, a.Response)
		}
		scoring.ScoreHits(&r, q, sc, a.Response.Hits, a.Response.Routing)
		results[a.Index], answered[a.Index] = r, true
		done++
		if onDone != nil {
			onDone(done)
		}
	})
	if err := ctx.Err(); err != nil {
		return Batch{}, err
	}
	if errors.Is(err, backend.ErrBatchUnsupported) && done == 0 {
		return evaluate(ctx, s, queries, sc, o, requestPrefix, onDone)
	}
	if err != nil && !errors.Is(err, backend.ErrServiceExited) {
		fmt.Fprintf(log, "batch search: %v: the %d queries not answered go one by one\n", err, len(queries)-done)
	}
	if done == len(queries) {
		return Batch{Results: results}, nil
	}
	return evaluateRest(ctx, s, queries, sc, o, requestPrefix, onDone, results, answered)
}

// evaluateRest evaluates one by one (evaluate) the queries a batch did
// not answer (answered[i] false) into results, which holds the others'.
func evaluateRest(ctx context.Context, s backend.Searcher, queries []scoring.Query, sc scoring.Scorer, o EvalOptions, requestPrefix string, onDone func(done int), results []runs.QueryResult, answered []bool) (Batch, error) {
	done := 0
	var rest []scoring.Query
	var at []int
	for i, ok := range answered {
		if !ok {
			rest, at = append(rest, queries[i]), append(at, i)
		} else {
			done++
		}
	}
	sub, err := evaluate(ctx, s, rest, sc, o, requestPrefix, func(n int) {
		if onDone != nil {
			onDone(done + n)
		}
	})
	if sub.Results == nil {
		return Batch{}, err
	}
	for j, r := range sub.Results {
		results[at[j]] = r
	}
	return Batch{Results: results, Failed: sub.Failed}, err
}

// SearchBatch implements backend.BatchSearcher when the wrapped backend
// does (backend.ErrBatchUnsupported otherwise): the batch counts as
// search time, as its searches would one by one.
func (t *TimedBackend) SearchBatch(ctx context.Context, reqs []backend.SearchRequest, answer func(backend.BatchAnswer)) error {
	bs, ok := t.Backend.(backend.BatchSearcher)
	if !ok {
		return fmt.Errorf("search batch: %w", backend.ErrBatchUnsupported)
	}
	defer t.searchBegins()()
	return bs.SearchBatch(ctx, reqs, answer)
}
