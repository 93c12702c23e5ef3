package tuner_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/fusiontune/fusiontune/tuner/scoring"

	"github.com/fusiontune/fusiontune/backend/corpus"
	"github.com/fusiontune/fusiontune/backend/engine"
	"github.com/fusiontune/fusiontune/backend/engine/enginetest"
	"github.com/fusiontune/fusiontune/experiments"
	"github.com/fusiontune/fusiontune/experiments/demo"
	"github.com/fusiontune/fusiontune/runs"
)

// demoQueries extracts the shipped demo dataset and returns its queries
// with judgments resolved to document ids, and the corpus path.
func demoQueries(tb testing.TB) ([]scoring.Query, string) {
	tb.Helper()
	dir, err := demo.Extract(tb.TempDir())
	if err != nil {
		tb.Fatal(err)
	}
	path := filepath.Join(dir, "corpus.jsonl")
	gs, err := experiments.LoadGoldenSet(filepath.Join(dir, "golden.json"), experiments.LoadOptions{Format: experiments.FormatNative})
	if err != nil {
		tb.Fatal(err)
	}
	c, err := corpus.Load(corpus.Config{Path: path})
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
	var qs []scoring.Query
	for _, q := range gs.Queries {
		tq := scoring.Query{ID: q.ID, Text: q.Text, Category: q.Category, ExpectedRouting: q.ExpectedRouting}
		if rq := res.Query(q.ID); rq != nil {
			tq.Judgments = rq.Judgments
		}
		qs = append(qs, tq)
	}
	return qs, path
}

// engineBackend is the embedded engine behind a real HTTP server on
// 127.0.0.1 (enginetest.Backend).
type engineBackend = enginetest.Backend

func newEngineBackend(t *testing.T, path string) *engineBackend {
	cfg := engine.DefaultConfig()
	cfg.Corpus.Path = path
	cfg.Corpus.Format = corpus.FormatBEIR
	cfg.Dense.Model = "hash-384"
	cfg.CacheDir = filepath.Join(t.TempDir(), "cache")
	cfg.Listen = "127.0.0.1:0"
	b := enginetest.NewBackend(cfg)
	t.Cleanup(func() { b.Close() })
	return b
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
