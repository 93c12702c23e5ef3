package main

import (
	"context"
	"fmt"

	"github.com/fusiontune/fusiontune/internal/cli"

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
	if fs.NArg() > 1 {
		return usageErrorf("want at most one GOLDEN (got %d arguments)", fs.NArg())
	}
	s, err := settingsOf(fs)
	if err != nil {
		return err
	}
	if fs.NArg() == 1 {
		s.Dataset = tuner.GoldenArg(fs.Arg(0), s.Dataset.Corpus)
	}
	// Everything is read and checked before the first file is written.
	run, err := a.exportTrialRun(s, fs.Str("trial"))
	if err != nil {
		return err
	}
	ds, err := openDataset(s)
	if err != nil {
		return err
	}
	for _, n := range ds.ExportNotes() {
		fmt.Fprintln(a.stderr, n)
	}
	paths, err := tuner.ExportWithRun(ds, fs.Str("format"), fs.Str("out"), run)
	if err != nil {
		return runError(err)
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
