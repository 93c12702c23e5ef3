package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/fusiontune/fusiontune/backend/engine"
	"github.com/fusiontune/fusiontune/experiments"
	"github.com/fusiontune/fusiontune/experiments/demo"
	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner"
)

// dataset is the golden set a sweep evaluates, resolved against its corpus.
type dataset struct {
	gs         *experiments.GoldenSet
	queries    []tuner.Query
	hash       string
	describe   string
	warnings   []string
	goldenPath string
	corpusPath string
}

// openDataset loads the configured golden set (the shipped demo when none
// is configured), applies the split and resolves every judgment against the
// corpus, so passage judgments become document ids.
func (a *app) openDataset(s *settings) (*dataset, error) {
	d := s.Dataset
	if d.Path == "" {
		dir, err := demoDir()
		if err != nil {
			return nil, err
		}
		d.Path = filepath.Join(dir, "golden.json")
		d.Corpus = filepath.Join(dir, "corpus.jsonl")
		d.Format = experiments.FormatNative
		d = d.WithDefaults()
		s.Dataset = d
	}
	gs, err := d.Load()
	if errors.Is(err, fs.ErrNotExist) {
		return nil, inputError(fmt.Errorf("dataset.path: %w", err))
	}
	if err != nil {
		return nil, inputError(err)
	}
	ds := &dataset{gs: gs, hash: gs.Hash, goldenPath: d.Path}
	for _, w := range gs.Warnings {
		ds.warnings = append(ds.warnings, w.Error())
	}
	corpus := d.Corpus
	if corpus == "" {
		corpus = engineCorpusPath(s)
	}
	ds.corpusPath = corpus
	var docs []experiments.Document
	if corpus != "" {
		c, err := engine.LoadCorpus(engine.CorpusConfig{Path: corpus})
		if err != nil {
			return nil, inputError(fmt.Errorf("dataset.corpus: %w", err))
		}
		docs = make([]experiments.Document, len(c.Docs))
		for i, doc := range c.Docs {
			docs[i] = experiments.Document{ID: doc.ID, Text: doc.Text}
		}
	}
	res, err := gs.Resolve(docs)
	if err != nil {
		return nil, inputError(err)
	}
	for _, w := range res.Warnings {
		ds.warnings = append(ds.warnings, w.Error())
	}
	for _, q := range gs.Queries {
		tq := tuner.Query{ID: q.ID, Text: q.Text, Category: q.Category, Difficulty: q.Difficulty, ExpectedRouting: q.ExpectedRouting}
		if rq := res.Query(q.ID); rq != nil {
			tq.Judgments = rq.Judgments
		}
		ds.queries = append(ds.queries, tq)
	}
	ds.describe = fmt.Sprintf("golden set %s, split %s", d.Path, d.Split)
	return ds, nil
}

// engineCorpusPath returns the corpus path of the embedded engine's
// settings, if any.
func engineCorpusPath(s *settings) string {
	if c, ok := s.Backend.Engine["corpus"].(map[string]any); ok {
		if p, ok := c["path"].(string); ok {
			return p
		}
	}
	return ""
}

// snapshot copies the golden set into the run with its hash.
func (ds *dataset) snapshot(run *runs.Run) error {
	info := map[string]any{"path": ds.goldenPath, "sha256": ds.hash, "corpus": ds.corpusPath, "queries": len(ds.queries)}
	if err := run.WriteJSON("golden.json.sha256.json", info); err != nil {
		return err
	}
	if st, err := os.Stat(ds.goldenPath); err == nil && !st.IsDir() {
		data, err := os.ReadFile(ds.goldenPath)
		if err != nil {
			return fmt.Errorf("snapshot golden set: %w", err)
		}
		return run.WriteFile("golden"+filepath.Ext(ds.goldenPath), data)
	}
	return nil
}

func jsonUnmarshal(data []byte, v any) error { return json.Unmarshal(data, v) }

// demoDir extracts the shipped demo dataset into the user cache.
func demoDir() (string, error) {
	dir, err := userCacheDir("")
	if err != nil {
		return "", err
	}
	return demo.Extract(dir)
}

// userCacheDir returns (and creates) fusiontune's cache directory sub.
func userCacheDir(sub string) (string, error) {
	dir := userCachePath(sub)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("cache directory: %w", err)
	}
	return dir, nil
}

// userCachePath is fusiontune's cache directory sub, not created.
func userCachePath(sub string) string {
	base, err := os.UserCacheDir()
	if err != nil {
		base = os.TempDir()
	}
	return filepath.Join(base, "fusiontune", sub)
}
