package tuner

import (
	"testing"
	"time"

	"github.com/fusiontune/fusiontune/runs"
)

// newTestRun creates a run in a fresh store under t's temporary directory.
func newTestRun(t *testing.T) *runs.Run {
	t.Helper()
	store, err := runs.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	run, err := store.Create(runs.Manifest{Tool: "test"}, time.Unix(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	return run
}
