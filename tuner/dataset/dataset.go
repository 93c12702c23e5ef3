package dataset

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/fusiontune/fusiontune/backend/corpus"
	"github.com/fusiontune/fusiontune/experiments"
	"github.com/fusiontune/fusiontune/experiments/demo"
	"github.com/fusiontune/fusiontune/internal/inputerr"
	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner/scoring"
)

// Dataset is the golden set a sweep evaluates, resolved against its
// corpus: passage judgments have become document ids.
type Dataset struct {
	// Config is the dataset as loaded: the shipped demo's files when none
	// was configured.
	Config  experiments.DatasetConfig
	Golden  *experiments.GoldenSet
	Queries []scoring.Query
	// Corpus is the corpus the judgments were resolved against ("": none).
	Corpus string
	// Docs are the corpus's document ids, which every judgment and label
	// must name (nil: no corpus, or dataset.allow_missing_docs).
	Docs map[string]bool
	// Warnings are the golden set's and the resolution's, for the log.
	Warnings []string
	// Demo is true for the shipped demo dataset (no dataset.path).
	Demo bool
	// Labels, when the judgments were merged with a label store
	// (MergeLabels), records it and the judgments' provenance.
	Labels *LabelsInfo
}

// Open loads the golden set d names (the shipped demo, extracted
// under cacheDir, when d has no path), applies its split and resolves every
// judgment against the corpus: d.Corpus, else corpusFallback (the embedded
// engine's corpus), else none. Problems with the user's files are
// *inputerr.Error.
//
// It lives here rather than in experiments because resolving needs the
// engine's corpus reader, and experiments sits below backend.
func Open(d experiments.DatasetConfig, corpusFallback, cacheDir string) (*Dataset, error) {
	demoPath := d.Path == ""
	if demoPath {
		var err error
		if d, err = demoDataset(d, cacheDir); err != nil {
			return nil, err
		}
	}
	corpus := d.Corpus
	if corpus == "" {
		corpus = corpusFallback
	}
	gs, docs, err := loadGolden(d, corpus, cacheDir)
	if err != nil {
		return nil, err
	}
	ds := &Dataset{Config: d, Golden: gs, Corpus: corpus, Demo: demoPath}
	for _, w := range gs.Warnings {
		ds.Warnings = append(ds.Warnings, w.Error())
	}
	res, err := gs.Resolve(docs)
	if err != nil {
		return nil, inputerr.Wrap(err)
	}
	for _, w := range res.Warnings {
		ds.Warnings = append(ds.Warnings, w.Error())
	}
	if ds.Corpus != "" && !d.AllowMissingDocs {
		ds.Docs = make(map[string]bool, len(docs))
		for _, doc := range docs {
			ds.Docs[doc.ID] = true
		}
	}
	if ds.Corpus != "" {
		warn, err := res.CheckMissing(docs, d.AllowMissingDocs)
		if err != nil {
			return nil, inputerr.Wrap(err)
		}
		if warn != nil {
			ds.Warnings = append(ds.Warnings, warn.Error())
		}
	}
	for _, q := range gs.Queries {
		tq := scoring.Query{ID: q.ID, Text: q.Text, Category: q.Category, Difficulty: q.Difficulty, ExpectedRouting: q.ExpectedRouting}
		if rq := res.Query(q.ID); rq != nil {
			tq.Judgments, tq.Open = rq.Judgments, rq.Open
		}
		ds.Queries = append(ds.Queries, tq)
	}
	return ds, nil
}

// extractDemo extracts the shipped demo dataset under cacheDir.
func extractDemo(cacheDir string) (string, error) {
	if err := os.MkdirAll(cacheDir, 0o755); err != nil {
		return "", fmt.Errorf("cache directory: %w", err)
	}
	return demo.Extract(cacheDir)
}

// demoDataset is d on the shipped demo: its golden set and corpus,
// extracted under cacheDir, in the native format, then d's defaults (its
// other settings, the split among them, are kept).
func demoDataset(d experiments.DatasetConfig, cacheDir string) (experiments.DatasetConfig, error) {
	dir, err := extractDemo(cacheDir)
	if err != nil {
		return d, err
	}
	d.Path = filepath.Join(dir, "golden.json")
	d.Corpus = filepath.Join(dir, "corpus.jsonl")
	d.Format = experiments.FormatNative
	return d.WithDefaults(), nil
}

// loadGolden reads d's golden set and the corpus at corpus ("": none) side
// by side (a corpus whose ids are all it needs, kept under cacheDir: see
// corpusIDs). Every error is an *inputerr.Error naming the setting at fault
// (dataset.path when the golden set is missing, dataset.corpus).
func loadGolden(d experiments.DatasetConfig, corpus, cacheDir string) (*experiments.GoldenSet, []experiments.Document, error) {
	var docs []experiments.Document
	var docsErr error
	var wg sync.WaitGroup
	if corpus != "" {
		read := CorpusDocuments
		if judgesByID(d) {
			read = func(path string) ([]experiments.Document, error) { return corpusIDs(path, cacheDir) }
		}
		wg.Go(func() { docs, docsErr = read(corpus) })
	}
	gs, err := d.Load()
	wg.Wait()
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, inputerr.Wrap(fmt.Errorf("dataset.path: %w", err))
	}
	if err != nil {
		return nil, nil, inputerr.Wrap(err)
	}
	if docsErr != nil {
		return nil, nil, inputerr.Wrap(fmt.Errorf("dataset.corpus: %w", docsErr))
	}
	return gs, docs, nil
}

// judgesByID reports whether d's golden set judges documents by id only
// (a BEIR folder: qrels), so that resolving it needs the corpus's ids, not
// its texts (which passage_substring judgments search).
func judgesByID(d experiments.DatasetConfig) bool {
	if d.Format != "" {
		return d.Format == experiments.FormatBEIR
	}
	fi, err := os.Stat(d.Path)
	return err == nil && fi.IsDir()
}

// corpusIDs is CorpusDocuments with the documents' ids only (the same
// lines accepted, the same errors; corpus.LoadIDs), kept under
// cacheDir's corpus folder by the corpus's content hash
// (corpus.CachedIDs; nothing kept when cacheDir is "").
func corpusIDs(path, cacheDir string) ([]experiments.Document, error) {
	if cacheDir != "" {
		cacheDir = filepath.Join(cacheDir, "corpus")
	}
	c, err := corpus.CachedIDs(corpus.Config{Path: path}, cacheDir)
	if err != nil {
		return nil, err
	}
	docs := make([]experiments.Document, len(c.Docs))
	for i, doc := range c.Docs {
		docs[i] = experiments.Document{ID: doc.ID}
	}
	return docs, nil
}

// CorpusDocuments reads the corpus at path (BEIR corpus.jsonl, JSONL or a
// folder) as the documents judgments resolve against, each with the
// scope fields (experiments.ScopeFields) its line carries.
func CorpusDocuments(path string) ([]experiments.Document, error) {
	c, err := corpus.Load(corpus.Config{Path: path, Fields: experiments.ScopeFields})
	if err != nil {
		return nil, err
	}
	docs := make([]experiments.Document, len(c.Docs))
	for i, doc := range c.Docs {
		docs[i] = experiments.Document{ID: doc.ID, Text: doc.Text, Fields: doc.Fields}
	}
	return docs, nil
}

// Describe names the dataset for the log.
func (ds *Dataset) Describe() string {
	return fmt.Sprintf("golden set %s, split %s, grades %s", ds.Config.Path, ds.Config.Split, ds.Golden.Scale)
}

// Snapshot copies the golden set into run with its hash.
func (ds *Dataset) Snapshot(run *runs.Run) error {
	path := ds.Config.Path
	info := map[string]any{"path": path, "sha256": ds.Golden.Hash, "corpus": ds.Corpus, "queries": len(ds.Queries),
		"grades": ds.Golden.Scale}
	if ds.Config.ID != "" {
		info["dataset_id"] = ds.Config.ID // the label store's key (RunDatasetID)
	}
	if ds.Labels != nil {
		info["labels"] = ds.Labels
	}
	var infoErr error
	var wg sync.WaitGroup
	wg.Go(func() { infoErr = run.WriteJSON(goldenInfoFile, info) })
	err := ds.snapshotGolden(run, path)
	wg.Wait()
	return errors.Join(infoErr, err)
}

// snapshotGolden copies the golden set's file into run: the bytes it was
// loaded and hashed from when it is one file (not the file again, which
// may have changed since), else the file at path, if it is one.
func (ds *Dataset) snapshotGolden(run *runs.Run, path string) error {
	data, ok := ds.Golden.Raw()
	if !ok {
		st, err := os.Stat(path)
		if err != nil || st.IsDir() {
			return nil
		}
		if data, err = os.ReadFile(path); err != nil {
			return fmt.Errorf("snapshot golden set: %w", err)
		}
	}
	return run.WriteFile("golden"+filepath.Ext(path), data)
}

// Filter keeps the queries of ds in category (when not "") and language
// (when not "" or "all") and returns the filter's name (experiments.
// GoldenSet.Filter; "" for none); a filter no query passes is an input
// error.
func (ds *Dataset) Filter(category, language string) (string, error) {
	gs, name := ds.Golden.Filter(category, language)
	if name == "" {
		return "", nil
	}
	if len(gs.Queries) == 0 {
		return "", inputerr.Wrap(fmt.Errorf("--category/--lang: no query of the golden set has %s", name))
	}
	keep := make(map[string]bool, len(gs.Queries))
	for _, q := range gs.Queries {
		keep[q.ID] = true
	}
	kept := make([]scoring.Query, 0, len(gs.Queries))
	for _, q := range ds.Queries {
		if keep[q.ID] {
			kept = append(kept, q)
		}
	}
	ds.Golden, ds.Queries = gs, kept
	return name, nil
}
