package main

import (
	"context"
	"errors"

	"github.com/fusiontune/fusiontune/tuner/verdict"

	"github.com/fusiontune/fusiontune/runs"

	"github.com/fusiontune/fusiontune/cmd/tune/internal/cli"
)

var gateSpec = cli.Spec{Name: "gate", Usage: usage("gate") + pickUsage, Args: runAndTrial, Flags: []cli.Flag{configFlag, runsDirFlag}}

func runGate(ctx context.Context, a *app, args []string) error {
	fs, s, _, run, err := a.parseRun(gateSpec, args)
	if err != nil {
		return err
	}
	if len(s.ParsedGates) == 0 {
		return inputError(errors.New("gates: no gates in the settings (e.g. gates: [\"NDCG@10 >= 0.5\"])"))
	}
	entry, err := runs.TrialOf(run, fs.Arg(1))
	if err != nil {
		if fs.NArg() < 2 {
			return failedError(err) // no trial succeeded
		}
		return inputError(err)
	}
	return verdict.GateTrial(run, entry, s.ParsedGates, a.stdout)
}
