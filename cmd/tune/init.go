package main

import (
	"context"
	"fmt"
	"github.com/fusiontune/fusiontune/internal/cli"
	"path/filepath"

	"github.com/fusiontune/fusiontune/experiments"
	"github.com/fusiontune/fusiontune/tuner"
)

const initUsage = `[--corpus FILE] [--dir DIR]

Writes a starter project into DIR (default: the working directory): a
commented tune.yaml (every settings section with its defaults and ranges,
paths relative to it), experiment.yaml (RRF k x retriever weights, 9 trials
against a baseline) and golden.yaml, a golden-set skeleton. With --corpus,
the skeleton's queries judge real documents of the corpus; their texts are
"TODO:" placeholders, and tune check (and every sweep) refuses the golden
set, naming each one, until they are written. Never overwrites a file: when
one exists, nothing is written (exit 2).`

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
