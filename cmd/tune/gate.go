package main

import (
	"context"
	"errors"
	"fmt"
	"github.com/fusiontune/fusiontune/internal/cli"
	"io"
	"strings"

	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner"
)

const gateUsage = `RUN [TRIAL] [--config tune.yaml] [--runs-dir DIR]

Checks every gate of the settings (gates: ["Recall@3 >= 0.80",
"routing[billing] == 1.0", ...]) on TRIAL of RUN and prints each with its value.
Exits 1 when a gate fails.

` + pickUsage

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
	return checkGates(s, run, entry, a.stdout)
}

func checkGates(s *settings, run *runs.Run, entry runs.Entry, w io.Writer) error {
	results, err := tuner.CheckGates(run, entry, s.ParsedGates)
	if err != nil {
		return err
	}
	if err := tuner.RecordGates(run, entry, results); err != nil {
		return err
	}
	return printGates(run, entry, results, w)
}

// printGates prints the gates checked on entry, each with its value, and
// fails (exit 1) when one failed. Without gates it prints nothing.
func printGates(run *runs.Run, entry runs.Entry, results []tuner.GateResult, w io.Writer) error {
	if len(results) == 0 {
		return nil
	}
	fmt.Fprintf(w, "gates on trial %s (run %s):\n", entry.Name, run.ID())
	for _, r := range results {
		fmt.Fprintf(w, "  %s\n", r)
	}
	failed := tuner.FailedGates(results)
	if len(failed) == 0 {
		return nil
	}
	texts := make([]string, len(failed))
	for i, r := range failed {
		texts[i] = r.Text
	}
	return failedError(fmt.Errorf("%d of %d gates failed on trial %s: %s", len(failed), len(results), entry.Name, strings.Join(texts, ", ")))
}

// notPromoted says which failing gates stopped --apply-best: "not
// promoted: gate Recall@3 >= 0.80 failed (0.7100)".
func notPromoted(results []tuner.GateResult) string {
	var parts []string
	for _, r := range tuner.FailedGates(results) {
		if r.Measured {
			parts = append(parts, fmt.Sprintf("gate %s failed (%.4f)", r.Text, r.Value))
		} else {
			parts = append(parts, fmt.Sprintf("gate %s failed (%s)", r.Text, r.Detail))
		}
	}
	return "not promoted: " + strings.Join(parts, "; ")
}
