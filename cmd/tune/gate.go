package main

import (
	"context"
	"errors"

	"github.com/fusiontune/fusiontune/internal/cli"

	"github.com/fusiontune/fusiontune/tuner"
)

var gateUsage = usage("gate") + pickUsage

var gateSpec = cli.Spec{Name: "gate", Usage: gateUsage, Flags: []cli.Flag{configFlag, runsDirFlag}}

func runGate(ctx context.Context, a *app, args []string) error {
	fs, err := a.parse(gateSpec, args)
	if err != nil {
		return err
	}
	if fs.NArg() < 1 || fs.NArg() > 2 {
		return usageErrorf("want RUN and optionally TRIAL (got %d arguments)", fs.NArg())
	}
	s, _, run, err := a.openRun(fs, fs.Arg(0))
	if err != nil {
		return err
	}
	if len(s.ParsedGates) == 0 {
		return inputError(errors.New("gates: no gates in the settings (e.g. gates: [\"NDCG@10 >= 0.5\"])"))
	}
	entry, err := tuner.TrialOf(run, fs.Arg(1))
	if err != nil {
		if fs.NArg() < 2 {
			return failedError(err) // no trial succeeded
		}
		return inputError(err)
	}
	return tuner.GateTrial(run, entry, s.ParsedGates, a.stdout)
}
