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

// ErrSearchSetup marks a search that failed because of how it is set up,
// not of the moment: the service refused the request as malformed (a 4xx
// status) or its answer does not fit the response mapping (not JSON,
// nothing at the hits path). Every query would fail the same way, so the
// tuner's pre-flight makes one sample search and reports it before any
// trial. Mark an error with SetupError.
var ErrSearchSetup = errors.New("the search request or its response mapping does not fit the service")

// SetupError marks err as ErrSearchSetup, its message unchanged.
func SetupError(err error) error {
	if err == nil {
		return nil
	}
	return setupError{err}
}

type setupError struct{ err error }

func (e setupError) Error() string        { return e.err.Error() }
func (e setupError) Unwrap() error        { return e.err }
func (e setupError) Is(target error) bool { return target == ErrSearchSetup }

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
