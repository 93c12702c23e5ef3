package runs

import (
	"fmt"
	"strings"

	"github.com/fusiontune/fusiontune/internal/inputerr"
)

// TrialOf returns the leaderboard entry of run that trial selects (see
// Leaderboard.Pick): "" the run's winner (the best, or under
// score.constraints the best trial meeting them, from latency.json), "#N"
// the rank, a name or a unique prefix of one.
func TrialOf(run *Run, trial string) (Entry, error) {
	lb, err := run.ReadLeaderboard()
	if err != nil {
		return Entry{}, err
	}
	if trial == "" {
		if e, ok, err := ConstrainedWinner(run, lb); ok || err != nil {
			return e, err
		}
	}
	e, err := lb.Pick(trial)
	if err != nil {
		return Entry{}, fmt.Errorf("run %s: %w", run.ID(), err)
	}
	return e, nil
}

// ConstrainedWinner returns the winner latency.json records when the run
// had score.constraints (ok true); an error when none met them.
func ConstrainedWinner(run *Run, lb Leaderboard) (Entry, bool, error) {
	l, ok, err := run.ReadLatency()
	if err != nil || !ok || len(l.Constraints) == 0 {
		return Entry{}, false, err
	}
	if l.Winner == "" {
		return Entry{}, true, fmt.Errorf("run %s: no trial meets score.constraints (%s; see %s)", run.ID(), strings.Join(l.Constraints, "; "), LatencyFile)
	}
	e, err := lb.Find(l.Winner)
	return e, true, err
}

// ResolveTrial finds the trial ref names in store: "RUN" (its best trial)
// or "RUN:TRIAL" (run ids hold no colon; trial names may: "w=bm25:0.6").
// A run or trial that is not there is an inputerr.Error.
func ResolveTrial(store *Store, ref string) (*Run, Entry, error) {
	runRef, trial, _ := strings.Cut(ref, ":")
	run, err := store.Resolve(runRef)
	if err != nil {
		return nil, Entry{}, inputerr.Wrap(err)
	}
	e, err := TrialOf(run, trial)
	if err != nil {
		return nil, Entry{}, inputerr.Wrap(err)
	}
	return run, e, nil
}
