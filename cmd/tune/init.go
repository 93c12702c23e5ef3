package main

import (
	"context"
	"fmt"
	"github.com/fusiontune/fusiontune/internal/cli"
	"path/filepath"

	"github.com/fusiontune/fusiontune/experiments"
	"github.com/fusiontune/fusiontune/tuner"
)

var initUsage = usage("init")

var initSpec = cli.Spec{Name: "init", Usage: initUsage, Flags: []cli.Flag{
	cli.String("corpus", "", "the corpus `file` (BEIR corpus.jsonl, JSONL or a folder) the skeleton judges documents of"),
	cli.String("dir", ".", "the `directory` to write into (created when missing)")}}

func runInit(ctx context.Context, a *app, args []string) error {
	fs, err := a.parse(initSpec, args)
	if err != nil {
		return err
	}
	corpus, dir := fs.Str("corpus"), fs.Str("dir")
	if fs.NArg() > 0 {
		return usageErrorf("unexpected argument %q", fs.Arg(0))
	}
	paths, err := tuner.InitProject(dir, corpus)
	for _, p := range paths {
		fmt.Fprintln(a.stdout, p)
	}
	if err != nil {
		return runError(err)
	}
	golden := filepath.Join(dir, experiments.InitGoldenFile)
	if corpus == "" {
		fmt.Fprintf(a.stderr, "next: set dataset.corpus in %s, ", filepath.Join(dir, experiments.InitSettingsFile))
	} else {
		fmt.Fprint(a.stderr, "next: ")
	}
	fmt.Fprintf(a.stderr, "write the queries of %s ('tune check %s' lists what is left), then run 'tune --experiments %s' in %s\n",
		golden, golden, experiments.InitExperimentFile, dir)
	return nil
}
