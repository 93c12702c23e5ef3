package main

import (
	"context"

	"github.com/fusiontune/fusiontune/tuner/analysis"

	"github.com/fusiontune/fusiontune/cmd/tune/internal/cli"
)

var planSpec = cli.Spec{Name: "plan", Usage: usage("plan"), Args: atMostOneRun, Flags: []cli.Flag{configFlag, runsDirFlag,
	cli.String("effect", analysis.DefaultPlanEffectText, "the mean gain to detect, 0 < EFFECT <= 1")}}

func runPlan(ctx context.Context, a *app, args []string) error {
	fs, err := a.parse(planSpec, args)
	if err != nil {
		return err
	}
	e, err := analysis.ParseEffect(fs.Str("effect"))
	if err != nil {
		return err
	}
	if fs.NArg() == 0 {
		s, err := a.settingsOf(fs)
		if err != nil {
			return err
		}
		return analysis.PlanBudget(e, nil, "", s.StatsOptions(0)).Write(a.stdout)
	}
	s, _, run, err := a.openRun(fs, fs.Arg(0))
	if err != nil {
		return err
	}
	b, err := analysis.PlanRun(e, run, s.StatsOptions(0))
	if err != nil {
		return err
	}
	return b.Write(a.stdout)
}
