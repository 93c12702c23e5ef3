package main

import (
	"context"

	"github.com/fusiontune/fusiontune/internal/cli"
	"github.com/fusiontune/fusiontune/runs"

	"github.com/fusiontune/fusiontune/tuner"
)

var compareUsage = usage("compare") + pickUsage

var compareSpec = cli.Spec{Name: "compare", Usage: compareUsage, Flags: []cli.Flag{configFlag, runsDirFlag,
	cli.String("format", "text", "text, json or md").OneOf(runs.CompareFormats...).AlsoAccepts("markdown"),
	cli.Int("k", tuner.DefaultJaccardK, "depth of the Jaccard overlap").Min(1),
	cli.Int("changed", tuner.DefaultChanged, "how many most-changed queries to list").Min(1)}}

func runCompare(ctx context.Context, a *app, args []string) error {
	fs, err := a.parse(compareSpec, args)
	if err != nil {
		return err
	}
	if fs.NArg() != 2 {
		return usageErrorf("want RUN_A[:TRIAL] and RUN_B[:TRIAL] (got %d arguments)", fs.NArg())
	}
	format, k, top := fs.Str("format"), fs.Int("k"), fs.Int("changed")
	s, store, err := a.openSettingsStore(fs)
	if err != nil {
		return err
	}
	c, err := tuner.CompareRefs(ctx, store, fs.Arg(0), fs.Arg(1), s.StatsOptions, tuner.CompareOptions{JaccardK: k, Changed: top})
	if err != nil {
		return runError(err)
	}
	return c.Render(a.stdout, format)
}
