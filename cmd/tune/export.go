package main

import (
	"context"

	"github.com/fusiontune/fusiontune/tuner/dataset"

	"github.com/fusiontune/fusiontune/cmd/tune/internal/cli"
	"github.com/fusiontune/fusiontune/runs"
)

// defaultExportDir is tune export's --out.
const defaultExportDir = "export"

var exportSpec = cli.Spec{Name: "export", Usage: usage("export"), Args: cli.ArgRange(0, 1, "at most one GOLDEN"), Flags: []cli.Flag{configFlag, runsDirFlag, datasetIDFlag,
	cli.String("format", dataset.ExportTREC, "trec or beir").OneOf(dataset.ExportTREC, dataset.ExportBEIR),
	cli.String("out", defaultExportDir, "directory to write into (created; files in it are replaced)"),
	cli.String("trial", "", "RUN[:TRIAL]: also write that recorded trial's ranking as DIR/run.trec")}}

func runExport(ctx context.Context, a *app, args []string) error {
	fs, err := a.parse(exportSpec, args)
	if err != nil {
		return err
	}
	s, err := a.settingsOf(fs)
	if err != nil {
		return err
	}
	if fs.NArg() == 1 {
		s.Dataset = dataset.GoldenArg(fs.Arg(0), s.Dataset.Corpus)
	}
	openStore := func() (*runs.Store, error) {
		store, err := a.openStore(s.RunsDir)
		if err == nil {
			a.warnUnfinished(s, store)
		}
		return store, err
	}
	r := dataset.ExportRequest{Format: fs.Str("format"), Dir: fs.Str("out"), Trial: fs.Str("trial"), OpenStore: openStore}
	return dataset.ExportFiles(s.OpenDataset, r, a.stdout, a.stderr)
}
