package main

import (
	"context"
	"fmt"

	"github.com/fusiontune/fusiontune/cmd/tune/internal/cli"
	"github.com/fusiontune/fusiontune/runs/report"
)

var reportSpec = cli.Spec{Name: "report", Usage: usage("report"), Args: atMostOneRun, Flags: []cli.Flag{configFlag, runsDirFlag,
	cli.String("out", "", "output file (default RUN/report.html; - for stdout)")}}

func runReport(ctx context.Context, a *app, args []string) error {
	fs, _, _, run, err := a.parseRun(reportSpec, args)
	if err != nil {
		return err
	}
	path, err := report.WriteTo(run, fs.Str("out"), a.stdout, report.DefaultOptions())
	if err != nil || path == "" {
		return err
	}
	fmt.Fprintln(a.stdout, path)
	return nil
}
