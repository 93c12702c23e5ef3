package ui_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"sync"
	"testing"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/backend/engine"
	"github.com/fusiontune/fusiontune/backend/engine/enginetest"
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
	served  *enginetest.Served
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
	b.mu.Lock()
	cfg := b.applied
	b.mu.Unlock()
	s, err := enginetest.Serve(ctx, cfg)
	if err != nil {
		return err
	}
	b.mu.Lock()
	b.served = s
	b.mu.Unlock()
	return nil
}

func (b *engineBackend) Ready(ctx context.Context) error {
	b.mu.Lock()
	s := b.served
	b.mu.Unlock()
	if s == nil {
		return errors.New("not started")
	}
	return s.Client.Ready(ctx)
}

func (b *engineBackend) Search(ctx context.Context, req backend.SearchRequest) (backend.SearchResponse, error) {
	b.mu.Lock()
	s := b.served
	b.mu.Unlock()
	if s == nil {
		return backend.SearchResponse{}, errors.New("not started")
	}
	return s.Client.Search(ctx, req)
}

func (b *engineBackend) Close() error {
	b.mu.Lock()
	s := b.served
	b.served = nil
	b.mu.Unlock()
	s.Close()
	return nil
}
