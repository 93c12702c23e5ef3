package main

import (
	"context"
	"fmt"

	"github.com/fusiontune/fusiontune/cmd/tune/internal/cli"
	"github.com/fusiontune/fusiontune/tuner/adapt"
	"github.com/fusiontune/fusiontune/tuner/promote"
)

var adaptSpec = cli.Spec{Name: "adapt", Usage: usage("adapt") + pickUsage, Args: cli.ArgRange(1, 1, "RUN"), Flags: []cli.Flag{configFlag, runsDirFlag,
	textJSONFlag,
	cli.Int("folds", adapt.DefaultFolds, "k of the k-fold cross-validation (2..20)"),
	cli.Int64("seed", adapt.DefaultSeed, "seed of the fold assignment and the paired test"),
	cli.Int("levels", adapt.DefaultLevels, "most splits on a path of the tree (0..8; 0: one global setting)"),
	cli.Int("min-leaf", adapt.DefaultMinLeaf, "fewest training queries on each side of a split (>= 1)"),
	cli.String("metric", adapt.DefaultMetric, "per-query metric of the run's scorecard, or primary"),
	cli.String("collection", "", "replay group by its collection file (default: every group)"),
	cli.String("out", "", "write the learned policy (JSON) here"),
	cli.Bool("apply", false, "promote the learned policy: set fusion.policy in the production config (backend.config), with backup, restart, smoke check and rollback; refused unless promotable")}}

func runAdapt(ctx context.Context, a *app, args []string) error {
	fs, err := a.parse(adaptSpec, args)
	if err != nil {
		return err
	}
	o := adapt.RunOptions{Options: adapt.DefaultOptions()}
	o.Folds, o.Seed, o.Levels, o.MinLeaf = fs.Int("folds"), fs.Int64("seed"), fs.Int("levels"), fs.Int("min-leaf")
	o.Metric, o.Collection = fs.Str("metric"), fs.Str("collection")
	if err := o.Options.Validate(1 << 30); err != nil {
		return usageErrorf("%v", err)
	}
	s, store, run, err := a.openRun(fs, fs.Arg(0))
	if err != nil {
		return err
	}
	o.Thresholds = s.StatsOptions(o.Seed).Thresholds
	reports, err := adapt.Run(ctx, run, o)
	if err != nil {
		return err
	}
	chosen, err := adapt.Output(reports, fs.Str("out"), fs.Bool("apply"))
	if err != nil {
		return err
	}
	if err := adapt.Render(a.stdout, reports, fs.Str("format")); err != nil || !fs.Bool("apply") {
		return err
	}
	if s.Backend.Config == "" {
		return errNoProduction
	}
	unlock, err := store.LockFor(s.Backend.Config, append([]string{"adapt"}, args...), a.stderr)
	defer unlock()
	if err != nil {
		return err
	}
	p, err := promote.PolicyInstall(ctx, promote.PolicyConfig{ConfigPath: s.Backend.Config, Store: store, Run: run,
		Collection: chosen.Collection, Policy: chosen.Learned, NewVerify: s.ProductionVerifier(a.secrets, a.stderr), Log: a.stderr})
	if err != nil {
		return err
	}
	fmt.Fprintln(a.stderr, p.PolicyText())
	return nil
}
