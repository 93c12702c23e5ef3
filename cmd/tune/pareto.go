package main

import (
	"fmt"

	"github.com/fusiontune/fusiontune/runs"
)

// printPareto writes tune leaderboard --pareto: the leaderboard joined
// with the run's latency.json.
func (a *app) printPareto(run *runs.Run, lb runs.Leaderboard, format string) error {
	l, ok, err := run.ReadLatency()
	if err != nil {
		return err
	}
	if !ok {
		return inputError(fmt.Errorf("--pareto: run %s measured no latency (%s): only live trials and the finalists of latency.finalists are measured", run.ID(), runs.LatencyFile))
	}
	return lb.Pareto(l).Render(a.stdout, format)
}
