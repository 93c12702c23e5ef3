package ui_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/backend/client"
	"github.com/fusiontune/fusiontune/backend/engine"
	"github.com/fusiontune/fusiontune/backend/fusion"
)

// engineFactory is the embedded engine as a backend kind, run in this
// process (a real engine served on loopback HTTP and searched with the
// real client) instead of a tune serve process: the microscope tests need
// no tune binary.
type engineFactory struct{ base engine.Config }

var (
	_ backend.Factory        = (*engineFactory)(nil)
	_ backend.FusionResolver = (*engineFactory)(nil)
)

// newEngineFactory is the engine on corpus (BEIR) with the hashed dense
// model, its index cache in a temporary directory.
func newEngineFactory(t *testing.T, corpus string) *engineFactory {
	cfg := engine.DefaultConfig()
	cfg.Corpus.Path, cfg.Corpus.Format = corpus, engine.FormatBEIR
	cfg.Dense.Model = "hash-384"
	cfg.CacheDir = filepath.Join(t.TempDir(), "cache")
	cfg.Listen = "127.0.0.1:0"
	return &engineFactory{base: cfg}
}

func (f *engineFactory) Check(p map[string]any) error { _, err := f.base.WithParams(p); return err }
func (f *engineFactory) Describe(p map[string]any) string {
	c, err := f.base.WithParams(p)
	return fmt.Sprint(c, err)
}
func (f *engineFactory) Fusion(p map[string]any) (fusion.Settings, error) {
	c, err := f.base.WithParams(p)
	return c.FusionSettings(), err
}
func (f *engineFactory) Open(string, io.Writer) (backend.Backend, error) {
	return &engineBackend{f: f, applied: f.base}, nil
}

type engineBackend struct {
	f       *engineFactory
	mu      sync.Mutex
	applied engine.Config
	stop    context.CancelFunc
	served  chan error
	search  *client.Client
}

func (b *engineBackend) Apply(_ context.Context, p map[string]any) error {
	c, err := b.f.base.WithParams(p)
	if err != nil {
		return err
	}
	b.mu.Lock()
	b.applied = c
	b.mu.Unlock()
	return nil
}

func (b *engineBackend) Restart(ctx context.Context) error {
	b.Close()
	e, err := engine.New(b.applied, engine.Options{})
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	ready, served := make(chan struct{}), make(chan error, 1)
	sctx, cancel := context.WithCancel(context.Background())
	go func() {
		served <- engine.NewServer(e, engine.ServerOptions{}).Serve(sctx, ln, func() { close(ready) })
		e.Close()
	}()
	c, err := client.New("http://" + ln.Addr().String())
	if err != nil {
		cancel()
		return err
	}
	b.mu.Lock()
	b.stop, b.served, b.search = cancel, served, c
	b.mu.Unlock()
	select {
	case <-ready:
		return nil
	case err := <-served:
		return err
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(time.Minute):
		return errors.New("engine not ready after a minute")
	}
}

func (b *engineBackend) Ready(ctx context.Context) error {
	b.mu.Lock()
	s := b.search
	b.mu.Unlock()
	if s == nil {
		return errors.New("not started")
	}
	return s.Ready(ctx)
}

func (b *engineBackend) Search(ctx context.Context, req backend.SearchRequest) (backend.SearchResponse, error) {
	b.mu.Lock()
	s := b.search
	b.mu.Unlock()
	if s == nil {
		return backend.SearchResponse{}, errors.New("not started")
	}
	return s.Search(ctx, req)
}

func (b *engineBackend) Close() error {
	b.mu.Lock()
	stop, served := b.stop, b.served
	b.stop, b.served, b.search = nil, nil, nil
	b.mu.Unlock()
	if stop != nil {
		stop()
		<-served
	}
	return nil
}
