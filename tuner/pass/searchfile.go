package pass

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"time"

	"github.com/fusiontune/fusiontune/backend/engine"
	"github.com/fusiontune/fusiontune/experiments"
	"github.com/fusiontune/fusiontune/internal/inputerr"
	"github.com/fusiontune/fusiontune/internal/trec"
	"github.com/fusiontune/fusiontune/internal/userfile"
)

// SearchFileOptions are `tune search`'s inputs: the engine config file,
// the queries file (BEIR queries.jsonl or TSV), the depth, the run tag
// and, optionally, one retriever whose own scores to write instead of the
// fused ranking.
type SearchFileOptions struct {
	Config, Queries string
	K               int
	Tag, Retriever  string
	Log             *slog.Logger
	// Getenv reads the API keys the engine config's embedders name (nil:
	// none); the command passes os.Getenv.
	Getenv func(string) string
}

// SearchFile builds the embedded engine of o.Config and searches every
// query of o.Queries, returning the run in trec_eval's order (checked).
// Errors the user can fix are input errors (inputerr.Error).
func SearchFile(ctx context.Context, o SearchFileOptions) (trec.Run, error) {
	cfg, err := engine.LoadConfig(o.Config)
	if err != nil {
		return trec.Run{}, inputerr.Wrap(err)
	}
	if o.Retriever != "" && !slices.Contains(cfg.Retrievers, o.Retriever) {
		return trec.Run{}, inputerr.Wrap(fmt.Errorf("search: --retriever %s: %s enables only %q", o.Retriever, o.Config, cfg.Retrievers))
	}
	data, err := userfile.Read(o.Queries, userfile.Default)
	if err != nil {
		return trec.Run{}, inputerr.Wrap(fmt.Errorf("search: %w", err))
	}
	queries, err := experiments.ParseTopics(o.Queries, data)
	if err != nil {
		return trec.Run{}, inputerr.Wrap(err)
	}
	e, err := engine.New(cfg, engine.Options{Logger: o.Log, Getenv: o.Getenv})
	if err != nil {
		return trec.Run{}, inputerr.Wrap(fmt.Errorf("%s: %w", o.Config, err))
	}
	defer e.Close()
	if err := e.Build(ctx); err != nil {
		return trec.Run{}, err
	}
	start := time.Now()
	var run trec.Run
	if o.Retriever == "" {
		run, err = SearchAll(ctx, e, queries, o.K, o.Tag)
	} else {
		run, err = SearchRetriever(ctx, e, queries, o.K, o.Tag, o.Retriever)
	}
	if err != nil {
		return trec.Run{}, err
	}
	// Every list must already be in trec_eval's order (the tie rule), so
	// that the ranks written are the ranks any evaluator scores.
	for _, q := range slices.Sorted(maps.Keys(run.Queries)) {
		if err := trec.CheckOrder(q, run.Queries[q]); err != nil {
			return trec.Run{}, fmt.Errorf("search: %w", err)
		}
	}
	o.Log.Info("searched", "queries", len(queries), "elapsed", time.Since(start).Round(time.Millisecond))
	return run, nil
}
