package external

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"time"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/backend/httpbackend"
)

// ErrReadOnly is the refusal of a promotion on a read-only http backend:
// it has no config file to write and no command to restart.
var ErrReadOnly = errors.New("backend.kind http without config, template and restart is read-only: promotion needs backend.config, backend.template and backend.restart")

// readOnly is an http backend that is only searched: Apply keeps the
// trial's parameters for the request templates (params.NAME), Restart does
// nothing, nothing on the service changes.
type readOnly struct {
	s       *httpbackend.Searcher
	timeout time.Duration // bounds the first Apply's wait for the health URL
	mu      sync.RWMutex
	params  map[string]any
	ready   bool
}

var (
	_ backend.Backend   = (*readOnly)(nil)
	_ backend.Restarter = (*readOnly)(nil)
)

func (r *readOnly) Ready(ctx context.Context) error { return r.s.Ready(ctx) }

func (r *readOnly) Search(ctx context.Context, req backend.SearchRequest) (backend.SearchResponse, error) {
	r.mu.RLock()
	p := r.params
	r.mu.RUnlock()
	return r.s.SearchParams(ctx, req, p)
}

// Apply keeps params for the request templates; the service is untouched.
// The first Apply waits (up to the start timeout) until the service
// answers its health URL: nothing restarts it, so nothing else would.
func (r *readOnly) Apply(ctx context.Context, params map[string]any) error {
	if !r.ready {
		rctx, cancel := context.WithTimeout(ctx, r.timeout)
		err := r.s.Ready(rctx)
		cancel()
		if err != nil {
			return err
		}
		r.ready = true
	}
	cp := make(map[string]any, len(params))
	for k, v := range params {
		cp[k] = v
	}
	r.mu.Lock()
	r.params = cp
	r.mu.Unlock()
	return nil
}

// Restart does nothing: a read-only backend never restarts the service.
func (r *readOnly) Restart(context.Context) error { return nil }

// NeedsRestart is always false.
func (r *readOnly) NeedsRestart() bool { return false }

// Close does nothing: nothing was changed.
func (r *readOnly) Close() error { return nil }

// readOnlyDescription is a read-only trial's record of what it ran on:
// the service's search URL and the parameters its request templates see.
func readOnlyDescription(url string, params map[string]any) string {
	p, err := json.Marshal(params)
	if err != nil || len(params) == 0 {
		p = []byte("{}")
	}
	return "# read-only http backend: " + url + " as it runs (no config written, no restart)\n# request templates' params.*: " + string(p) + "\n"
}
