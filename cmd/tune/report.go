package main

import (
	"bytes"
	"context"
	"fmt"
	"github.com/fusiontune/fusiontune/internal/cli"

	"github.com/fusiontune/fusiontune/runs"
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
	out := fs.Str("out")
	if fs.NArg() > 1 {
		return usageErrorf("want at most one RUN (got %d arguments)", fs.NArg())
	}
	_, _, run, err := a.openRun(fs, fs.Arg(0))
	if err != nil {
		return err
	}
	opts := report.DefaultOptions()
	switch out {
	case "":
		path, err := report.Write(run, opts)
		if err != nil {
			return err
		}
		fmt.Fprintln(a.stdout, path)
		return nil
	case "-":
		return report.Render(a.stdout, run, opts)
	}
	var b bytes.Buffer
	if err := report.Render(&b, run, opts); err != nil {
		return err
	}
	if err := runs.WriteFileAtomic(out, b.Bytes(), 0o644); err != nil {
		return fmt.Errorf("report --out: %w", err)
	}
	fmt.Fprintln(a.stdout, out)
	return nil
}
