package main

import (
	"context"
	"fmt"

	"github.com/fusiontune/fusiontune/cmd/tune/internal/cli"
	"github.com/fusiontune/fusiontune/runs"
)

var runsSpec = cli.Spec{Name: "runs", Usage: "[--runs-dir DIR] [--format text|json|md|csv]", Flags: []cli.Flag{configFlag, runsDirFlag,
	cli.String("format", "text", "text, json, md or csv").OneOf(runs.ListFormats...)}}

func runRuns(ctx context.Context, a *app, args []string) error {
	fs, err := a.parse(runsSpec, args)
	if err != nil {
		return err
	}
	s, store, err := a.openSettingsStore(fs)
	if err != nil {
		return err
	}
	list, err := store.List()
	if err != nil {
		return err
	}
	if len(list) == 0 {
		fmt.Fprintf(a.stderr, "no runs in %s\n", s.RunsDir)
		if fs.Str("format") != "json" {
			return nil
		}
	}
	return runs.WriteList(a.stdout, fs.Str("format"), runs.ListRows(list))
}
