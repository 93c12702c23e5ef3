package main

import (
	"context"
	"log/slog"
	"os"

	"github.com/fusiontune/fusiontune/tuner/pass"

	"github.com/fusiontune/fusiontune/backend/engine"
	"github.com/fusiontune/fusiontune/cmd/tune/internal/cli"
	"github.com/fusiontune/fusiontune/internal/trec"
)

var searchSpec = cli.Spec{Name: "search", Usage: "--config engine.yaml --queries queries.jsonl [--k 100] [--retriever bm25|dense] [--out run.trec]", Args: cli.NoArgs, Flags: []cli.Flag{
	cli.String("config", "", "engine configuration `file` (YAML)").Required(),
	cli.String("queries", "", "queries `file`: BEIR queries.jsonl ({_id, text}) or TSV id<TAB>text").Required(),
	cli.Int("k", 100, "results per query").Range(1, engine.MaxDepth),
	cli.String("out", "-", "run `file` to write (- for stdout)"),
	cli.String("tag", "fusiontune", "run tag (the last column)"),
	cli.String("retriever", "", "write this retriever's own scores (bm25 or dense, before fusion) instead of the fused ranking").OneOf(engine.BM25, engine.Dense).AlsoAccepts("")}}

func runSearch(ctx context.Context, a *app, args []string) error {
	fs, err := a.parse(searchSpec, args)
	if err != nil {
		return err
	}
	run, err := pass.SearchFile(ctx, pass.SearchFileOptions{
		Config: fs.Str("config"), Queries: fs.Str("queries"), K: fs.Int("k"), Tag: fs.Str("tag"), Retriever: fs.Str("retriever"),
		Log: slog.New(slog.NewTextHandler(a.stderr, nil)), Getenv: os.Getenv,
	})
	if err != nil {
		return err
	}
	return trec.WriteRunFile(fs.Str("out"), a.stdout, run, "search")
}
