package verdict_test

import (
	"testing"

	"github.com/fusiontune/fusiontune/tuner/verdict"

	"github.com/fusiontune/fusiontune/runs"
)

// TestFailedTrials: failed trials are counted with the first one's
// reason; pruned and successful trials are not failures.
func TestFailedTrials(t *testing.T) {
	ok := runs.TrialRecord{Name: "a", Status: runs.StatusOK}
	pruned := runs.TrialRecord{Name: "p", Status: runs.StatusPruned}
	bad := runs.TrialRecord{Name: "b", Status: runs.StatusFailed, Error: "timeout"}
	bad2 := runs.TrialRecord{Name: "c", Status: runs.StatusFailed, Error: "refused"}
	if err := verdict.FailedTrials([]runs.TrialRecord{ok, pruned}); err != nil {
		t.Fatalf("no failures: %v", err)
	}
	err := verdict.FailedTrials([]runs.TrialRecord{ok, bad, pruned, bad2})
	want := "2 of 4 trials failed and are recorded with their reasons (first: b: timeout)"
	if err == nil || err.Error() != want {
		t.Fatalf("err = %v, want %q", err, want)
	}
}
