package main

import (
	"context"
	"fmt"

	"github.com/fusiontune/fusiontune/internal/cli"

	"github.com/fusiontune/fusiontune/runs/report"
)

var reportUsage = usage("report")

var reportSpec = cli.Spec{Name: "report", Usage: reportUsage, Flags: []cli.Flag{configFlag, runsDirFlag,
	cli.String("out", "", "output file (default RUN/report.html; - for stdout)")}}

func runReport(ctx context.Context, a *app, args []string) error {
	fs, err := a.parse(reportSpec, args)
	if err != nil {
		return err
	}
	if fs.NArg() > 1 {
		return usageErrorf("want at most one RUN (got %d arguments)", fs.NArg())
	}
	_, _, run, err := a.openRun(fs, fs.Arg(0))
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
