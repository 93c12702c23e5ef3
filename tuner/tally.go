package tuner

import (
	"fmt"
	"time"

	"github.com/fusiontune/fusiontune/runs"
)

// tally is the bookkeeping every trial loop shares: how many trials ran
// (for the ETA) and how many failed (against the failure budget).
type tally struct {
	start    time.Time
	ran      int
	failures int
	budget   int // 0: unlimited
}

func newTally(budget int) *tally { return &tally{start: time.Now(), budget: budget} }

// done counts a finished trial and returns the ETA of the remaining ones,
// and an ErrFailureBudget error once rec's failure spends the budget.
func (t *tally) done(rec runs.TrialRecord, remaining int) (time.Duration, error) {
	t.ran++
	eta := time.Duration(float64(time.Since(t.start)) / float64(t.ran) * float64(max(remaining, 0)))
	if rec.Status == runs.StatusFailed {
		t.failures++
		if t.budget > 0 && t.failures >= t.budget {
			return eta, fmt.Errorf("%w: %d trials failed (last: %s)", ErrFailureBudget, t.failures, rec.Error)
		}
	}
	return eta, nil
}

// recordedByName returns the trials a run already holds (a resumed run),
// by name.
func recordedByName(run *runs.Run) (map[string]runs.TrialRecord, error) {
	done, err := run.Trials()
	if err != nil {
		return nil, err
	}
	recorded := make(map[string]runs.TrialRecord, len(done))
	for _, t := range done {
		recorded[t.Name] = t
	}
	return recorded, nil
}
