package verdict

import (
	"fmt"

	"github.com/fusiontune/fusiontune/runs"
)

// FailedTrials says how many of trials failed (pruned trials are not
// failures) and the first one's reason; nil when none failed.
func FailedTrials(trials []runs.TrialRecord) error {
	failed := 0
	first := ""
	for _, t := range trials {
		if t.Status == runs.StatusFailed {
			if failed == 0 {
				first = fmt.Sprintf("%s: %s", t.Name, t.Error)
			}
			failed++
		}
	}
	if failed == 0 {
		return nil
	}
	return fmt.Errorf("%d of %d trials failed and are recorded with their reasons (first: %s)", failed, len(trials), first)
}
