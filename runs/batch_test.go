package runs_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/fusiontune/fusiontune/runs"
)

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

// TestTrialBatch: nothing is visible before Flush, the flushed files are
// byte for byte those of RecordTrial, and Abort leaves no temporaries.
func TestTrialBatch(t *testing.T) {
	queries := []runs.QueryResult{{QueryID: "q1", Top: []runs.RankedDoc{{DocID: "d<1>", Score: 0.5, Grade: 2}}, Labels: "1:L2", Scores: map[string]float64{"NDCG@10": 1}, Primary: 0.75}}
	one, batched := newTestRun(t), newTestRun(t)
	b := batched.NewTrialBatch()
	for _, tr := range fixtureTrials() {
		if err := one.RecordTrial(tr, queries); err != nil {
			t.Fatal(err)
		}
		if err := b.Record(tr, queries); err != nil {
			t.Fatal(err)
		}
	}
	if got, _ := batched.Trials(); len(got) != 0 {
		t.Fatalf("%d trials visible before Flush", len(got))
	}
	if err := b.Flush(); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(one.Dir, "trials", "*"))
	if len(files) != 2*len(fixtureTrials()) {
		t.Fatalf("RecordTrial wrote %d files", len(files))
	}
	for _, f := range files {
		want, _ := os.ReadFile(f)
		got, err := os.ReadFile(filepath.Join(batched.Dir, "trials", filepath.Base(f)))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s: batch wrote %q (%v), RecordTrial %q", filepath.Base(f), got, err, want)
		}
	}
	if all, _ := filepath.Glob(filepath.Join(batched.Dir, "trials", "*")); len(all) != len(files) {
		t.Errorf("batch left %d files, want %d", len(all), len(files))
	}

	aborted := newTestRun(t)
	b = aborted.NewTrialBatch()
	if err := b.Record(fixtureTrials()[0], queries); err != nil {
		t.Fatal(err)
	}
	b.Abort()
	if left, _ := os.ReadDir(filepath.Join(aborted.Dir, "trials")); len(left) != 0 {
		t.Errorf("Abort left %d files", len(left))
	}
}
