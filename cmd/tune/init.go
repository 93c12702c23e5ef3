package main

import (
	"context"
	"fmt"

	"github.com/fusiontune/fusiontune/tuner/dataset"

	"github.com/fusiontune/fusiontune/cmd/tune/internal/cli"
)

var initSpec = cli.Spec{Name: "init", Usage: usage("init"), Args: cli.NoArgs, Flags: []cli.Flag{
	cli.String("corpus", "", "the corpus `file` (BEIR corpus.jsonl, JSONL or a folder) the skeleton judges documents of"),
	cli.String("dir", ".", "the `directory` to write into (created when missing)")}}

func runInit(ctx context.Context, a *app, args []string) error {
	fs, err := a.parse(initSpec, args)
	if err != nil {
		return err
	}
	corpus, dir := fs.Str("corpus"), fs.Str("dir")
	paths, err := dataset.InitProject(dir, corpus)
	for _, p := range paths {
		fmt.Fprintln(a.stdout, p)
	}
	if err != nil {
		return err
	}
	fmt.Fprint(a.stderr, dataset.InitNext(dir, corpus))
	return nil
}
