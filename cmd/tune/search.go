package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"runtime"
	"sync"
	"time"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/backend/engine"
	"github.com/fusiontune/fusiontune/experiments"
	"github.com/fusiontune/fusiontune/experiments/trec"
)

func runSearch(ctx context.Context, a *app, args []string) error {
	fs := newFlagSet("search", "--config engine.yaml --queries queries.jsonl [--k 100] [--out run.trec]", a.stderr)
	configPath := fs.String("config", "", "engine configuration `file` (YAML)")
	queriesPath := fs.String("queries", "", "queries `file`: BEIR queries.jsonl ({_id, text}) or TSV id<TAB>text")
	k := fs.Int("k", 100, "results per query")
	out := fs.String("out", "-", "run `file` to write (- for a.stdout)")
	tag := fs.String("tag", "fusiontune", "run tag (the last column)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	switch {
	case *configPath == "":
		return usageErrorf("search: --config is required")
	case *queriesPath == "":
		return usageErrorf("search: --queries is required")
	case *k <= 0 || *k > engine.MaxDepth:
		return usageErrorf("search: --k must be in [1, %d] (got %d)", engine.MaxDepth, *k)
	case fs.NArg() > 0:
		return usageErrorf("search: unexpected arguments %q", fs.Args())
	}
	cfg, err := engine.LoadConfig(*configPath)
	if err != nil {
		return inputError(err)
	}
	data, err := os.ReadFile(*queriesPath)
	if err != nil {
		return inputError(fmt.Errorf("search: %w", err))
	}
	queries, err := experiments.ParseTopics(*queriesPath, data)
	if err != nil {
		return inputError(err)
	}
	log := slog.New(slog.NewTextHandler(a.stderr, nil))
	e, err := engine.New(cfg, engine.Options{Logger: log})
	if err != nil {
		return inputError(fmt.Errorf("%s: %w", *configPath, err))
	}
	defer e.Close()
	if err := e.Build(ctx); err != nil {
		return failedError(err)
	}
	start := time.Now()
	run, err := searchAll(ctx, e, queries, *k, *tag)
	if err != nil {
		return failedError(err)
	}
	log.Info("searched", "queries", len(queries), "elapsed", time.Since(start).Round(time.Millisecond))
	w := a.stdout
	if *out != "-" {
		f, err := os.Create(*out)
		if err != nil {
			return failedError(fmt.Errorf("search: %w", err))
		}
		defer f.Close()
		w = f
	}
	if err := trec.WriteRun(w, run); err != nil {
		return failedError(err)
	}
	if f, ok := w.(*os.File); ok && f != os.Stdout {
		if err := f.Close(); err != nil {
			return failedError(fmt.Errorf("search: %w", err))
		}
	}
	return nil
}

// searchAll runs every query on GOMAXPROCS goroutines.
func searchAll(ctx context.Context, s backend.Searcher, queries []experiments.Query, k int, tag string) (trec.Run, error) {
	run := trec.Run{Tag: tag, Queries: make(map[string][]trec.Result, len(queries))}
	results := make([][]trec.Result, len(queries))
	errs := make([]error, len(queries))
	next := make(chan int)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				resp, err := s.Search(ctx, backend.SearchRequest{Query: queries[i].Text, K: k})
				if err != nil {
					errs[i] = fmt.Errorf("search: query %q: %w", queries[i].ID, err)
					continue
				}
				seen := make(map[string]bool, len(resp.Hits))
				for _, h := range resp.Hits {
					if !seen[h.DocID] { // passage mode may rank a document twice
						seen[h.DocID] = true
						results[i] = append(results[i], trec.Result{DocNo: h.DocID, Score: h.Score})
					}
				}
			}
		}()
	}
	for i := range queries {
		next <- i
	}
	close(next)
	wg.Wait()
	for i, q := range queries {
		if errs[i] != nil {
			return run, errs[i]
		}
		if len(results[i]) > 0 {
			run.Queries[q.ID] = results[i]
		}
	}
	return run, nil
}
