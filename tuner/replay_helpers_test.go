package tuner_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"sync"
	"testing"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/backend/engine"
	"github.com/fusiontune/fusiontune/backend/engine/enginetest"
	"github.com/fusiontune/fusiontune/backend/fusion"
	"github.com/fusiontune/fusiontune/experiments"
	"github.com/fusiontune/fusiontune/experiments/demo"
	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner"
)

// demoQueries extracts the shipped demo dataset and returns its queries
// with judgments resolved to document ids, and the corpus path.
func demoQueries(tb testing.TB) ([]tuner.Query, string) {
	tb.Helper()
	dir, err := demo.Extract(tb.TempDir())
	if err != nil {
		tb.Fatal(err)
	}
	corpus := filepath.Join(dir, "corpus.jsonl")
	gs, err := experiments.LoadGoldenSet(filepath.Join(dir, "golden.json"), experiments.LoadOptions{Format: experiments.FormatNative})
	if err != nil {
		tb.Fatal(err)
	}
	c, err := engine.LoadCorpus(engine.CorpusConfig{Path: corpus})
	if err != nil {
		tb.Fatal(err)
	}
	docs := make([]experiments.Document, len(c.Docs))
	for i, d := range c.Docs {
		docs[i] = experiments.Document{ID: d.ID, Text: d.Text}
	}
	res, err := gs.Resolve(docs)
	if err != nil {
		tb.Fatal(err)
	}
	var qs []tuner.Query
	for _, q := range gs.Queries {
		tq := tuner.Query{ID: q.ID, Text: q.Text, Category: q.Category, ExpectedRouting: q.ExpectedRouting}
		if rq := res.Query(q.ID); rq != nil {
			tq.Judgments = rq.Judgments
		}
		qs = append(qs, tq)
	}
	return qs, corpus
}

// engineBackend is the embedded engine behind a real HTTP server on
// 127.0.0.1: Apply maps a trial's parameters onto the base config,
// Restart builds a new engine on it and serves it on a new port.
type engineBackend struct {
	base    engine.Config
	applied engine.Config
	running *engine.Config
	mu      sync.Mutex
	served  *enginetest.Served
	// alter, when set, rewrites every search request (to break a backend
	// on purpose).
	alter func(*backend.SearchRequest)
	// fail, when set, fails the searches it returns an error for (as a
	// backend failing some queries does).
	fail func(backend.SearchRequest) error
	// restarts counts the engines started.
	restarts int
}

var _ backend.Backend = (*engineBackend)(nil)

func newEngineBackend(t *testing.T, corpus string) *engineBackend {
	cfg := engine.DefaultConfig()
	cfg.Corpus.Path = corpus
	cfg.Corpus.Format = engine.FormatBEIR
	cfg.Dense.Model = "hash-384"
	cfg.CacheDir = filepath.Join(t.TempDir(), "cache")
	cfg.Listen = "127.0.0.1:0"
	b := &engineBackend{base: cfg, applied: cfg}
	t.Cleanup(func() { b.Close() })
	return b
}

// config is base overlaid by params, as the embedded backend overlays a
// trial's parameters (engine.Config.WithParams).
func (b *engineBackend) config(params map[string]any) (engine.Config, error) {
	return b.base.WithParams(params)
}

// resolve is the tuner's view of a trial's settings, as the embedded
// backend resolves them (embedded.Factory.Fusion).
func (b *engineBackend) resolve(params map[string]any) (fusion.Settings, error) {
	cfg, err := b.config(params)
	if err != nil {
		return fusion.Settings{}, err
	}
	return cfg.FusionSettings(), nil
}

func (b *engineBackend) Apply(_ context.Context, params map[string]any) error {
	cfg, err := b.config(params)
	if err != nil {
		return err
	}
	b.mu.Lock()
	b.applied = cfg
	b.mu.Unlock()
	return nil
}

func (b *engineBackend) Restart(ctx context.Context) error {
	b.Close()
	b.mu.Lock()
	cfg := b.applied
	b.running = &cfg
	b.restarts++
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

// NeedsRestart implements backend.Restarter.
func (b *engineBackend) NeedsRestart() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.running == nil || !reflect.DeepEqual(*b.running, b.applied)
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
	s, alter, fail := b.served, b.alter, b.fail
	b.mu.Unlock()
	if s == nil {
		return backend.SearchResponse{}, errors.New("not started")
	}
	if alter != nil {
		alter(&req)
	}
	if fail != nil {
		if err := fail(req); err != nil {
			return backend.SearchResponse{}, err
		}
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

// readRecords reads a run's trial records by name.
func readRecords(t *testing.T, run *runs.Run) map[string]runs.TrialRecord {
	t.Helper()
	trials, err := run.Trials()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]runs.TrialRecord{}
	for _, tr := range trials {
		out[tr.Name] = tr
	}
	return out
}

func mustExist(t *testing.T, path string) {
	t.Helper()
	if _, err := os.Stat(path); err != nil {
		t.Error(err)
	}
}
