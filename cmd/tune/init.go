package main

import (
	"context"
	"fmt"

	"github.com/fusiontune/fusiontune/tuner/dataset"

	"github.com/fusiontune/fusiontune/cmd/tune/internal/cli"
)

var initSpec = cli.Spec{Name: "init", Usage: usage("init"), Args: cli.NoArgs, Flags: []cli.Flag{
	cli.String("dataset", "", "your golden set `path`: a BEIR folder (corpus.jsonl, queries.jsonl, qrels/), TREC topics (with --judgments) or a native JSON/YAML file; tune.yaml points at it and no skeleton is written"),
	cli.String("judgments", "", "with --dataset TREC topics: their qrels `file`"),
	cli.String("qrels-split", "", "with --dataset a BEIR folder: the qrels `split` to read (default: test, or the folder's only one)"),
	cli.String("corpus", "", "the corpus: a `file` (BEIR corpus.jsonl or JSONL) or a folder (a BEIR folder, or .md/.txt files); default with a BEIR --dataset: its corpus.jsonl"),
	cli.String("dir", ".", "the `directory` to write into (created when missing)")}}

func runInit(ctx context.Context, a *app, args []string) error {
	fs, err := a.parse(initSpec, args)
	if err != nil {
		return err
	}
	dir := fs.Str("dir")
	in, err := dataset.InitProject(dir, dataset.InitOptions{Dataset: fs.Str("dataset"), Judgments: fs.Str("judgments"), QrelsSplit: fs.Str("qrels-split"), Corpus: fs.Str("corpus")})
	if in != nil {
		for _, p := range in.Paths {
			fmt.Fprintln(a.stdout, p)
		}
	}
	if err != nil {
		return err
	}
	for _, w := range in.Warnings {
		fmt.Fprintln(a.stderr, "warning:", w)
	}
	fmt.Fprint(a.stderr, dataset.InitNext(dir, in))
	return nil
}
