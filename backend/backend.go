package backend

import (
	"context"
	"errors"
)

// Searcher answers queries. The contract suite in backend/backendtest runs
// against every Searcher: the in-process engine, its HTTP server and the
// tuner's backends.
type Searcher interface {
	// Ready returns nil when the backend answers searches, or an error
	// saying why not (still indexing, unreachable).
	Ready(ctx context.Context) error
	// Search runs one query.
	Search(ctx context.Context, req SearchRequest) (SearchResponse, error)
}

// ErrServiceExited marks a search that failed because the backend's
// service process has exited: retrying cannot help, and the rest of the
// batch would fail the same way.
var ErrServiceExited = errors.New("service exited")

// Backend is a search service the tuner can reconfigure: Apply writes a
// trial's configuration, Restart makes the service load it, Ready waits for
// it, Search queries it and Close releases what the backend owns.
type Backend interface {
	Searcher
	// Apply writes the configuration for params (flattened dotted keys such
	// as "fusion.k" or "chunk.size") without restarting.
	Apply(ctx context.Context, params map[string]any) error
	// Restart stops the service (gracefully, then by force) and starts it
	// again on the applied configuration.
	Restart(ctx context.Context) error
	// Close stops what the backend started and restores what it changed.
	Close() error
}
