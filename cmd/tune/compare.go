package main

import (
	"context"

	"github.com/fusiontune/fusiontune/experiments"
	"github.com/fusiontune/fusiontune/tuner"
	"github.com/fusiontune/fusiontune/tuner/analysis"
	"github.com/fusiontune/fusiontune/tuner/verdict"

	"github.com/fusiontune/fusiontune/cmd/tune/internal/cli"
	"github.com/fusiontune/fusiontune/runs"
)

var compareSpec = cli.Spec{Name: "compare", Usage: usage("compare") + pickUsage, Args: cli.ArgRange(2, 2, "RUN_A[:TRIAL] and RUN_B[:TRIAL]"), Flags: []cli.Flag{configFlag, runsDirFlag,
	cli.String("format", "text", "text, json or md").OneOf(runs.CompareFormats...).AlsoAccepts("markdown"),
	cli.Int("k", analysis.DefaultJaccardK, "depth of the Jaccard overlap").Min(1),
	cli.Int("changed", analysis.DefaultChanged, "how many most-changed queries to list").Min(1),
	cli.String("by", "", "also split B's scores by a query attribute: language, category, difficulty or meta.KEY (queries, primary, Δ B - A, no relevant@10, key metrics per segment; from run A's golden-set snapshot)")}}

func runCompare(ctx context.Context, a *app, args []string) error {
	fs, err := a.parse(compareSpec, args)
	if err != nil {
		return err
	}
	by := fs.Str("by")
	if by != "" {
		if err := experiments.CheckSegmentation(by); err != nil {
			return usageErrorf("--by: %v", err)
		}
	}
	s, store, err := a.openSettingsStore(fs)
	if err != nil {
		return err
	}
	c, err := analysis.CompareRefs(ctx, store, fs.Arg(0), fs.Arg(1), s.StatsOptions, analysis.CompareOptions{JaccardK: fs.Int("k"), Changed: fs.Int("changed"),
		By: by, Segment: tuner.SegmentsOf})
	if err != nil {
		return err
	}
	v := verdict.ForComparison(c)
	c.Verdict = &v
	return c.Render(a.stdout, fs.Str("format"))
}
