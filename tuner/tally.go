package tuner

import (
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/fusiontune/fusiontune/runs"
)

// tally is the bookkeeping every trial loop shares: how many trials ran
// (for the ETA), how many failed (against the failure budget) and how many
// failed in a row with the same error (against the consecutive limit).
type tally struct {
	start    time.Time
	ran      int
	failures int
	budget   int // 0: unlimited
	// streak are the names of the trials that failed last in a row with
	// the error whose normalised text is streakErr; maxStreak stops the
	// loop when the streak reaches it (0: never).
	streak    []string
	streakErr string
	maxStreak int
}

func newTally(budget, maxConsecutive int) *tally {
	return &tally{start: time.Now(), budget: budget, maxStreak: maxConsecutive}
}

// done counts a finished trial and returns the ETA of the remaining ones,
// and an ErrFailureBudget error once rec's failure spends the budget, or an
// ErrStoppedEarly error once it makes the limit of consecutive trials
// failing with the same error (see SameError) and trials remain.
func (t *tally) done(rec runs.TrialRecord, remaining int) (time.Duration, error) {
	t.ran++
	eta := time.Duration(float64(time.Since(t.start)) / float64(t.ran) * float64(max(remaining, 0)))
	if rec.Status != runs.StatusFailed {
		t.streak, t.streakErr = nil, ""
		return eta, nil
	}
	t.failures++
	if t.budget > 0 && t.failures >= t.budget {
		return eta, fmt.Errorf("%w: %d trials failed (last: %s)", ErrFailureBudget, t.failures, rec.Error)
	}
	if norm := SameError(rec.Error, rec.Name); norm == t.streakErr && len(t.streak) > 0 {
		t.streak = append(t.streak, rec.Name)
	} else {
		t.streak, t.streakErr = []string{rec.Name}, norm
	}
	if t.maxStreak > 0 && len(t.streak) >= t.maxStreak && remaining > 0 {
		return eta, fmt.Errorf("%w: %d consecutive trials failed with the same error (%s; %d trials not run): %s",
			ErrStoppedEarly, len(t.streak), strings.Join(t.streak, ", "), max(remaining, 0), rec.Error)
	}
	return eta, nil
}

// SameError normalises a failed trial's error text so that trials failing
// for one cause compare equal: the trial's own name becomes "<trial>",
// every word holding a path or URL (with a "/" or a backslash) becomes
// "<path>", and every run of digits (counts, ports, durations, numbered
// names) becomes "#". Two errors are the same when their normalised texts
// are equal.
func SameError(msg, trialName string) string {
	if trialName != "" {
		msg = strings.ReplaceAll(msg, trialName, "<trial>")
	}
	msg = pathWord.ReplaceAllString(msg, "<path>")
	return digits.ReplaceAllString(msg, "#")
}

var (
	pathWord = regexp.MustCompile(`[^\s"'()]*[/\\][^\s"'()]*`)
	digits   = regexp.MustCompile(`[0-9]+`)
)

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
