package pass

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/backend/fusion"
	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner/scoring"
)

// Defaults of EvalOptions.
const (
	DefaultConcurrency = 4
	DefaultTimeout     = 30 * time.Second
	DefaultRetries     = 2
	DefaultBackoff     = 200 * time.Millisecond
	DefaultDepth       = 100 // hits requested per query
)

// EvalOptions control the batch evaluation of one trial.
type EvalOptions struct {
	Concurrency int           // queries in flight (default 4)
	Timeout     time.Duration // per query (default 30 s)
	Retries     int           // extra attempts after a failed search (default 2)
	Backoff     time.Duration // first retry delay, doubled each attempt (default 200 ms)
	K           int           // hits requested per query (default 100)
	// OnQueryError is what a query failing after its retries does: fail
	// the trial (QueryErrorFail, the default, also for ""), score it 0
	// (QueryErrorZero) or leave it out (QueryErrorSkip).
	OnQueryError string

	// Set by the replay (see replay.go): ask for candidate lists, override
	// the fusion settings per request, and see every successful response.
	Explain    bool
	Timings    bool // ask for the backend's stage timings (latency finalists)
	Fusion     *fusion.Params
	Variants   []fusion.Params // fused besides fusion on the same retrieval (see backend.SearchRequest)
	OnResponse func(q scoring.Query, resp backend.SearchResponse)
}

// WithDefaults returns o with every unset value at its default (see the
// Default constants).
func (o EvalOptions) WithDefaults() EvalOptions {
	if o.Concurrency <= 0 {
		o.Concurrency = DefaultConcurrency
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.Retries < 0 {
		o.Retries = 0
	}
	if o.Backoff <= 0 {
		o.Backoff = DefaultBackoff
	}
	if o.K <= 0 {
		o.K = DefaultDepth
	}
	return o
}

// Batch is the outcome of running every query of a trial.
type Batch struct {
	Results []runs.QueryResult // in query order
	Failed  int
}

// evaluate runs every query against s with bounded concurrency, retries and
// a per-query timeout, and scores each ranking. requestPrefix makes request
// ids unique per run and trial. onDone is called after each query. When
// the service dies (backend.ErrServiceExited) it stops at once and returns
// that error with the batch: the queries answered before, the others
// failed with it.
func evaluate(ctx context.Context, s backend.Searcher, queries []scoring.Query, sc scoring.Scorer, o EvalOptions, requestPrefix string, onDone func(done int)) (Batch, error) {
	o = o.WithDefaults()
	results := make([]runs.QueryResult, len(queries))
	var (
		wg     sync.WaitGroup
		mu     sync.Mutex
		done   int
		failed int
	)
	// A service that died (backend.ErrServiceExited) stops the batch at
	// once: every other query would fail the same way, after its retries.
	bctx, stop := context.WithCancel(ctx)
	defer stop()
	var dead error
	sem := make(chan struct{}, o.Concurrency)
	for i := range queries {
		if bctx.Err() != nil {
			break
		}
		sem <- struct{}{}
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			defer func() { <-sem }()
			q := queries[i]
			r, err := runQuery(bctx, s, q, sc, o, requestPrefix+"/"+q.ID)
			mu.Lock()
			if errors.Is(err, backend.ErrServiceExited) && dead == nil {
				dead = err
				stop()
			}
			results[i] = r
			done++
			if r.Error != "" {
				failed++
			}
			n := done
			mu.Unlock()
			if onDone != nil {
				onDone(n)
			}
		}(i)
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return Batch{}, err
	}
	if dead != nil {
		return Batch{Results: results, Failed: failUnanswered(results, queries, requestPrefix, dead)}, dead
	}
	scoring.MarkQueryErrors(results, o.OnQueryError)
	return Batch{Results: results, Failed: failed}, nil
}

// failUnanswered is a batch cut short by the service's death: the queries
// answered before it are kept, those that failed, were cut short or never
// sent (no result yet) fail with dead. It returns how many failed.
func failUnanswered(results []runs.QueryResult, queries []scoring.Query, requestPrefix string, dead error) int {
	failed := 0
	for i, r := range results {
		if r.QueryID == "" || r.Error != "" {
			q := queries[i]
			results[i] = runs.QueryResult{QueryID: q.ID, Category: q.Category, Expected: q.ExpectedRouting,
				RequestID: requestPrefix + "/" + q.ID, Unjudged: len(q.Judgments) == 0, Error: dead.Error(), Scores: map[string]float64{}}
			failed++
		}
	}
	return failed
}

// runQuery searches one query with retries and scores it; err is the
// search's last error (in r.Error too). A dead service
// (backend.ErrServiceExited) is not retried.
func runQuery(ctx context.Context, s backend.Searcher, q scoring.Query, sc scoring.Scorer, o EvalOptions, requestID string) (r runs.QueryResult, err error) {
	r = runs.QueryResult{QueryID: q.ID, Category: q.Category, Expected: q.ExpectedRouting, RequestID: requestID,
		Unjudged: len(q.Judgments) == 0}
	var resp backend.SearchResponse
	delay := o.Backoff
	for attempt := 0; attempt <= o.Retries; attempt++ {
		if attempt > 0 {
			select {
			case <-ctx.Done():
				err = ctx.Err()
			case <-time.After(delay):
			}
			if ctx.Err() != nil {
				break
			}
			delay *= 2
		}
		qctx, cancel := context.WithTimeout(ctx, o.Timeout)
		start := time.Now()
		resp, err = s.Search(qctx, backend.SearchRequest{Query: q.Text, K: o.K, RequestID: requestID, Explain: o.Explain, Timings: o.Timings, Fusion: o.Fusion, Variants: o.Variants})
		r.LatencyMS = float64(time.Since(start).Microseconds()) / 1000
		timedOut := errors.Is(qctx.Err(), context.DeadlineExceeded)
		cancel()
		if err == nil {
			break
		}
		if timedOut {
			err = fmt.Errorf("timed out after %s: %w", o.Timeout, err)
		}
		if ctx.Err() != nil || errors.Is(err, backend.ErrServiceExited) {
			break
		}
	}
	if err != nil {
		r.Error = err.Error()
		r.Scores = map[string]float64{}
		return r, err
	}
	if o.OnResponse != nil {
		o.OnResponse(q, resp)
	}
	scoring.ScoreHits(&r, q, sc, resp.Hits, resp.Routing)
	return r, nil
}
