package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/fusiontune/fusiontune/internal/cli"

	"github.com/fusiontune/fusiontune/experiments"
	"github.com/fusiontune/fusiontune/internal/atomicfile"
	"github.com/fusiontune/fusiontune/tuner"
)

var exportUsage = usage("export")

// defaultExportDir is tune export's --out.
const defaultExportDir = "export"

var exportSpec = cli.Spec{Name: "export", Usage: exportUsage, Flags: []cli.Flag{configFlag, runsDirFlag, datasetIDFlag,
	cli.String("format", tuner.ExportTREC, "trec or beir").OneOf(tuner.ExportTREC, tuner.ExportBEIR),
	cli.String("out", defaultExportDir, "directory to write into (created; files in it are replaced)"),
	cli.String("trial", "", "RUN[:TRIAL]: also write that recorded trial's ranking as DIR/run.trec")}}

func runExport(ctx context.Context, a *app, args []string) error {
	fs, err := a.parse(exportSpec, args)
	if err != nil {
		return err
	}
	format, out, trial := fs.Str("format"), fs.Str("out"), fs.Str("trial")
	if fs.NArg() > 1 {
		return usageErrorf("want at most one GOLDEN (got %d arguments)", fs.NArg())
	}
	s, err := settingsOf(fs)
	if err != nil {
		return err
	}
	if fs.NArg() == 1 {
		s.Dataset = goldenArg(fs.Arg(0), s.Dataset.Corpus)
	}
	// Everything is read and checked before the first file is written.
	run, err := a.exportTrialRun(s, trial)
	if err != nil {
		return err
	}
	ds, err := openDataset(s)
	if err != nil {
		return err
	}
	for _, w := range ds.Warnings {
		fmt.Fprintln(a.stderr, "warning:", w)
	}
	if ds.Config.Split != experiments.SplitAll {
		fmt.Fprintf(a.stderr, "note: exporting the %s split (%d queries)\n", ds.Config.Split, len(ds.Queries))
	}
	paths, err := tuner.Export(ds, format, out)
	if err != nil {
		return runError(err)
	}
	if run != nil {
		p := filepath.Join(out, tuner.TrialRunFile)
		if err := atomicfile.Write(p, run, 0o644); err != nil {
			return err
		}
		paths = append(paths, p)
	}
	for _, p := range paths {
		fmt.Fprintln(a.stdout, p)
	}
	return nil
}

// exportTrialRun is the run file of --trial RUN[:TRIAL] (nil without
// --trial), its note on stderr.
func (a *app) exportTrialRun(s *settings, trial string) ([]byte, error) {
	if trial == "" {
		return nil, nil
	}
	store, err := a.openStore(s.RunsDir)
	if err != nil {
		return nil, err
	}
	a.warnUnfinished(s, store)
	data, note, err := tuner.TrialRunBytes(store, trial)
	if err != nil {
		return nil, runError(err)
	}
	if note != "" {
		fmt.Fprintln(a.stderr, note)
	}
	return data, nil
}

// goldenArg is the dataset of a GOLDEN argument in any format (detected):
// a BEIR folder brings its own corpus, any other file resolves against
// the settings' corpus.
func goldenArg(path, corpus string) experiments.DatasetConfig {
	d := experiments.DatasetConfig{Path: path}
	if st, err := os.Stat(d.Path); err == nil && !st.IsDir() {
		d.Corpus = corpus
	}
	return d
}
