package main

import (
	"context"

	"github.com/fusiontune/fusiontune/tuner/analysis"
	"github.com/fusiontune/fusiontune/tuner/verdict"

	"github.com/fusiontune/fusiontune/cmd/tune/internal/cli"
	"github.com/fusiontune/fusiontune/runs"
)

var compareSpec = cli.Spec{Name: "compare", Usage: usage("compare") + pickUsage, Args: cli.ArgRange(2, 2, "RUN_A[:TRIAL] and RUN_B[:TRIAL]"), Flags: []cli.Flag{configFlag, runsDirFlag,
	cli.String("format", "text", "text, json or md").OneOf(runs.CompareFormats...).AlsoAccepts("markdown"),
	cli.Int("k", analysis.DefaultJaccardK, "depth of the Jaccard overlap").Min(1),
	cli.Int("changed", analysis.DefaultChanged, "how many most-changed queries to list").Min(1)}}

func runCompare(ctx context.Context, a *app, args []string) error {
	fs, err := a.parse(compareSpec, args)
	if err != nil {
		return err
	}
	s, store, err := a.openSettingsStore(fs)
	if err != nil {
		return err
	}
	c, err := analysis.CompareRefs(ctx, store, fs.Arg(0), fs.Arg(1), s.StatsOptions, analysis.CompareOptions{JaccardK: fs.Int("k"), Changed: fs.Int("changed")})
	if err != nil {
		return err
	}
	v := verdict.ForComparison(c)
	c.Verdict = &v
	return c.Render(a.stdout, fs.Str("format"))
}
