package tuner

import (
	"fmt"

	"github.com/fusiontune/fusiontune/internal/inputerr"
	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner/verdict"
)

// objective is the study's objective for run: ConstrainedObjective under
// ConstrainSampler, else nil (the primary score).
func (c Config) objective(run *runs.Run) func(runs.TrialRecord, []runs.QueryResult) (float64, error) {
	if !c.ConstrainSampler || len(c.Constraints) == 0 {
		return nil
	}
	return verdict.ConstrainedObjective(run, c.Constraints)
}

// checkConstrainSampler refuses, before any work, a constrained sampler
// that could not see what it is constrained by: latency is measured on
// live trials only.
func (c Config) checkConstrainSampler() error {
	if !c.ConstrainSampler {
		return nil
	}
	if len(c.Constraints) == 0 {
		return inputerr.Wrap(fmt.Errorf("score.constrain_sampler: set score.constraints for the sampler to search under"))
	}
	if verdict.NeedsLatency(c.Constraints) && c.Replay != nil && c.Replay.Mode != ModeLive {
		return inputerr.Wrap(fmt.Errorf("score.constrain_sampler: a latency constraint needs every trial measured live, and --mode %s replays query-time trials (which send no query of their own): run with --mode live", c.Replay.Mode))
	}
	return nil
}
