package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

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

func runInit(ctx context.Context, a *app, args []string) error {
	fs := newFlagSet("init", initUsage, a.stderr)
	corpus := fs.String("corpus", "", "the corpus `file` (BEIR corpus.jsonl, JSONL or a folder) the skeleton judges documents of")
	dir := fs.String("dir", ".", "the `directory` to write into (created when missing)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageErrorf("unexpected argument %q", fs.Arg(0))
	}
	absDir, err := filepath.Abs(*dir)
	if err != nil {
		return inputError(fmt.Errorf("--dir: %w", err))
	}
	var docs []experiments.Document
	rel := ""
	if *corpus != "" {
		if docs, err = tuner.CorpusDocuments(*corpus); err != nil {
			return inputError(fmt.Errorf("--corpus: %w", err))
		}
		if len(docs) == 0 {
			return inputError(fmt.Errorf("--corpus %s: no documents", *corpus))
		}
		abs, err := filepath.Abs(*corpus)
		if err != nil {
			return inputError(fmt.Errorf("--corpus: %w", err))
		}
		if rel, err = filepath.Rel(absDir, abs); err != nil {
			rel = abs
		}
		rel = filepath.ToSlash(rel)
	}
	files, err := experiments.Scaffold(rel, docs)
	if err != nil {
		return err
	}
	var exist []string
	for _, f := range files {
		p := filepath.Join(*dir, f.Name)
		if _, err := os.Lstat(p); err == nil {
			exist = append(exist, p)
		}
	}
	if len(exist) > 0 {
		return inputError(fmt.Errorf("init: not overwriting %s: nothing written (move the file(s) away or choose another --dir)", strings.Join(exist, ", ")))
	}
	if err := os.MkdirAll(*dir, 0o755); err != nil {
		return inputError(fmt.Errorf("--dir: %w", err))
	}
	for _, f := range files {
		p := filepath.Join(*dir, f.Name)
		if err := writeNew(p, f.Data); err != nil {
			return err
		}
		fmt.Fprintln(a.stdout, p)
	}
	golden := filepath.Join(*dir, experiments.InitGoldenFile)
	if *corpus == "" {
		fmt.Fprintf(a.stderr, "next: set dataset.corpus in %s, ", filepath.Join(*dir, experiments.InitSettingsFile))
	} else {
		fmt.Fprint(a.stderr, "next: ")
	}
	fmt.Fprintf(a.stderr, "write the queries of %s ('tune check %s' lists what is left), then run 'tune --experiments %s' in %s\n",
		golden, golden, experiments.InitExperimentFile, *dir)
	return nil
}

// writeNew creates path with data, failing when it exists.
func writeNew(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if errors.Is(err, os.ErrExist) {
		return inputError(fmt.Errorf("init: %s already exists; not overwritten", path))
	}
	if err != nil {
		return fmt.Errorf("init: %w", err)
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return fmt.Errorf("init: %w", err)
	}
	return f.Close()
}
