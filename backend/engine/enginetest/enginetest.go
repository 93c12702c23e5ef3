package enginetest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"reflect"
	"sync"
	"time"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/backend/client"
	"github.com/fusiontune/fusiontune/backend/engine"
	"github.com/fusiontune/fusiontune/backend/fusion"
)

// ReadyTimeout is how long Serve waits for the engine to be ready.
const ReadyTimeout = time.Minute

// Served is an engine served on a loopback port.
type Served struct {
	// Client searches it.
	Client *client.Client
	stop   context.CancelFunc
	served chan error
}

// Serve builds an engine on cfg, serves it on a free port of 127.0.0.1
// and returns once it is ready (or ctx ends, or ReadyTimeout passes).
func Serve(ctx context.Context, cfg engine.Config) (*Served, error) {
	e, err := engine.New(cfg, engine.Options{})
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		e.Close()
		return nil, err
	}
	ready, served := make(chan struct{}), make(chan error, 1)
	sctx, cancel := context.WithCancel(context.Background())
	go func() {
		served <- engine.NewServer(e, engine.ServerOptions{}).Serve(sctx, ln, func() { close(ready) })
		e.Close()
	}()
	s := &Served{stop: cancel, served: served}
	if s.Client, err = client.New("http://" + ln.Addr().String()); err != nil {
		s.Close()
		return nil, err
	}
	select {
	case <-ready:
		return s, nil
	case err := <-served:
		return nil, fmt.Errorf("engine stopped before it was ready: %w", err)
	case <-ctx.Done():
		s.Close()
		return nil, ctx.Err()
	case <-time.After(ReadyTimeout):
		s.Close()
		return nil, errors.New("engine not ready after a minute")
	}
}

// Close stops the server and the engine and waits for them.
func (s *Served) Close() {
	if s == nil || s.stop == nil {
		return
	}
	s.stop()
	<-s.served
	s.stop = nil
}

// Backend is the embedded engine as a tuner backend, run in this process:
// Apply maps a trial's parameters onto Base (engine.Config.WithParams, as
// the embedded kind does), Restart builds a new engine on them and serves
// it on a new port (Serve). Alter and Fail, when set before use, rewrite
// or fail searches (to break a backend on purpose).
type Backend struct {
	Base engine.Config
	// Alter rewrites every search request; Fail fails the searches it
	// returns an error for (as a backend failing some queries does).
	Alter func(*backend.SearchRequest)
	Fail  func(backend.SearchRequest) error
	// NoBatch makes SearchBatch fail with backend.ErrBatchUnsupported,
	// as a backend without batch search does.
	NoBatch bool

	mu       sync.Mutex
	applied  engine.Config
	running  *engine.Config
	restarts int
	served   *Served
}

var (
	_ backend.Backend   = (*Backend)(nil)
	_ backend.Restarter = (*Backend)(nil)
)

// NewBackend is a Backend on base, not started.
func NewBackend(base engine.Config) *Backend { return &Backend{Base: base, applied: base} }

// Resolve is a trial's fusion settings as the embedded kind resolves them
// (its Factory's Fusion).
func (b *Backend) Resolve(params map[string]any) (fusion.Settings, error) {
	cfg, err := b.Base.WithParams(params)
	if err != nil {
		return fusion.Settings{}, err
	}
	return cfg.FusionSettings(), nil
}

// Apply implements backend.Backend.
func (b *Backend) Apply(_ context.Context, params map[string]any) error {
	cfg, err := b.Base.WithParams(params)
	if err != nil {
		return err
	}
	b.mu.Lock()
	b.applied = cfg
	b.mu.Unlock()
	return nil
}

// Restart implements backend.Backend: a new engine on the applied config.
func (b *Backend) Restart(ctx context.Context) error {
	b.Close()
	b.mu.Lock()
	cfg := b.applied
	b.running = &cfg
	b.restarts++
	b.mu.Unlock()
	s, err := Serve(ctx, cfg)
	if err != nil {
		return err
	}
	b.mu.Lock()
	b.served = s
	b.mu.Unlock()
	return nil
}

// NeedsRestart implements backend.Restarter.
func (b *Backend) NeedsRestart() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.running == nil || !reflect.DeepEqual(*b.running, b.applied)
}

// Restarts is the number of engines started.
func (b *Backend) Restarts() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.restarts
}

// Ready implements backend.Backend.
func (b *Backend) Ready(ctx context.Context) error {
	b.mu.Lock()
	s := b.served
	b.mu.Unlock()
	if s == nil {
		return errors.New("not started")
	}
	return s.Client.Ready(ctx)
}

// Search implements backend.Backend.
func (b *Backend) Search(ctx context.Context, req backend.SearchRequest) (backend.SearchResponse, error) {
	b.mu.Lock()
	s := b.served
	b.mu.Unlock()
	if s == nil {
		return backend.SearchResponse{}, errors.New("not started")
	}
	if b.Alter != nil {
		b.Alter(&req)
	}
	if b.Fail != nil {
		if err := b.Fail(req); err != nil {
			return backend.SearchResponse{}, err
		}
	}
	return s.Client.Search(ctx, req)
}

// Close implements backend.Backend: the engine stops.
func (b *Backend) Close() error {
	b.mu.Lock()
	s := b.served
	b.served = nil
	b.mu.Unlock()
	s.Close()
	return nil
}
