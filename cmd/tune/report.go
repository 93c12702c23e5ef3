package main

import (
	"context"
	"fmt"

	"github.com/fusiontune/fusiontune/cmd/tune/internal/cli"
	"github.com/fusiontune/fusiontune/experiments"
	"github.com/fusiontune/fusiontune/runs/report"
	"github.com/fusiontune/fusiontune/tuner"
)

var reportSpec = cli.Spec{Name: "report", Usage: usage("report"), Args: atMostOneRun, Flags: []cli.Flag{configFlag, runsDirFlag,
	cli.String("out", "", "output file (default RUN/report.html; - for stdout)"),
	cli.String("by", "", "add the best trial's scores per segment: language, category, difficulty or meta.KEY (queries, primary, Δ baseline, no relevant in the top 10; from the run's golden-set snapshot)")}}

func runReport(ctx context.Context, a *app, args []string) error {
	fs, _, _, run, err := a.parseRun(reportSpec, args)
	if err != nil {
		return err
	}
	o := report.DefaultOptions()
	if o.By = fs.Str("by"); o.By != "" {
		if err := experiments.CheckSegmentation(o.By); err != nil {
			return usageErrorf("--by: %v", err)
		}
		if o.Segments, err = tuner.SegmentsOf(run, o.By); err != nil {
			return fmt.Errorf("--by %s: %w", o.By, err)
		}
	}
	path, err := report.WriteTo(run, fs.Str("out"), a.stdout, o)
	if err != nil || path == "" {
		return err
	}
	fmt.Fprintln(a.stdout, path)
	return nil
}
