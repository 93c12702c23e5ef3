package backend

import (
	"context"
	"errors"
	"time"
)

// BatchSearcher is a Searcher that also runs many queries in one call (the
// embedded engine's POST /search/batch): the tuner's replay uses it for its
// collection and verification passes when the backend has it, and sends
// one request per query otherwise (and always in live mode, which measures
// each query's latency).
type BatchSearcher interface {
	// SearchBatch runs every request of reqs and calls answer once for
	// each, from one goroutine, as the answers arrive (in any order). An
	// answer's response is the one Search gives for the same request
	// except that its hits carry no Text; a query that fails has Err set
	// and the others go on. SearchBatch returns an error wrapping
	// ErrBatchUnsupported, having answered nothing, when the backend has
	// no batch search; any other error ends the batch, and the requests
	// not answered by then never will be.
	SearchBatch(ctx context.Context, reqs []SearchRequest, answer func(BatchAnswer)) error
}

// BatchAnswer is the answer to one request of a batch.
type BatchAnswer struct {
	// Index is the request's position in the batch.
	Index int
	// Response is its response (hits without Text) when Err is nil.
	Response SearchResponse
	// Err is why this query failed (the batch goes on).
	Err error
	// Elapsed is the backend's own time for the search (0 when unknown):
	// the batch is not a latency measurement.
	Elapsed time.Duration
}

// ErrBatchUnsupported is wrapped by SearchBatch's error when the backend
// (or the service behind it) has no batch search: search per query.
var ErrBatchUnsupported = errors.New("batch search not supported")
