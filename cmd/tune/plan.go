package main

import (
	"context"
	"strconv"

	"github.com/fusiontune/fusiontune/internal/cli"
	"github.com/fusiontune/fusiontune/internal/plainnum"
	"github.com/fusiontune/fusiontune/tuner"
)

// DefaultPlanEffect is tune plan's --effect.
const DefaultPlanEffect = 0.02

var planSpec = cli.Spec{Name: "plan", Usage: usage("plan"), Args: atMostOneRun, Flags: []cli.Flag{configFlag, runsDirFlag,
	cli.String("effect", strconv.FormatFloat(DefaultPlanEffect, 'g', -1, 64), "the mean gain to detect, 0 < EFFECT <= 1")}}

func runPlan(ctx context.Context, a *app, args []string) error {
	fs, err := a.parse(planSpec, args)
	if err != nil {
		return err
	}
	effect := fs.Str("effect")
	e, ok := plainnum.Float(effect)
	if !ok || !(e > 0 && e <= 1) {
		return usageErrorf("--effect: must be a number in (0, 1] (got %q)", effect)
	}
	if fs.NArg() == 0 {
		s, err := settingsOf(fs)
		if err != nil {
			return err
		}
		return tuner.PlanBudget(e, nil, "", s.StatsOptions(0)).Write(a.stdout)
	}
	s, _, run, err := a.openRun(fs, fs.Arg(0))
	if err != nil {
		return err
	}
	b, err := tuner.PlanRun(e, run, s.StatsOptions(0))
	if err != nil {
		return err
	}
	return b.Write(a.stdout)
}
