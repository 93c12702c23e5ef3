package runs_test

import (
	"errors"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/fusiontune/fusiontune/runs"
)

// TestRecorderBatchWaitsForCollection checks the Recorder's batch of
// replayed trials: no record is written, and no trial reported, before
// the collection the records refer to is durable (BatchEntry.Stored);
// the batch is flushed once, from its last trial on, in the background
// (the barrier, Wait, waits for it), into one file; and a collection that
// could not be stored fails the flush, with no record written and nothing
// reported.
func TestRecorderBatchWaitsForCollection(t *testing.T) {
	for _, storeErr := range []error{nil, errors.New("disk full")} {
		t.Run(fmt.Sprint(storeErr), func(t *testing.T) {
			store, err := runs.Open(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			run, err := store.Create(runs.Manifest{Tool: "test"}, time.Unix(0, 0))
			if err != nil {
				t.Fatal(err)
			}
			release := make(chan struct{})
			storedCalls := 0
			stored := func() error {
				storedCalls++
				<-release
				return storeErr
			}
			rec := runs.NewRecorder(run)
			reported := 0
			ref := &runs.ReplayRef{Collection: "collect-000.jsonl", Settings: []byte(`{}`)}
			for i := range 3 {
				tr := runs.TrialRecord{Index: i, Name: fmt.Sprintf("t%d", i), Status: runs.StatusOK,
					Mode: runs.TrialReplay, Replay: ref, Summary: runs.Summary{Scorecard: map[string]float64{}}}
				if i < 2 {
					if err := rec.Batch(tr, nil, runs.BatchEntry{Stored: stored}); err != nil {
						t.Fatal(err)
					}
					rec.Then(func() { reported++ })
					continue
				}
				// The last trial's record starts the batch's flush behind
				// the loop, which goes on; the barrier (wait) waits for it.
				if err := rec.Batch(tr, nil, runs.BatchEntry{Stored: stored, Last: true}); err != nil {
					t.Fatal(err)
				}
				rec.Then(func() { reported++ })
				done := make(chan error, 1)
				go func() { done <- rec.Wait() }()
				select {
				case err := <-done:
					t.Fatalf("the barrier returned (%v) before the collection was stored", err)
				case <-time.After(50 * time.Millisecond):
				}
				if files, _ := filepath.Glob(filepath.Join(run.Dir, "trials", "replayed-*.jsonl")); len(files) != 0 || reported != 0 {
					t.Fatalf("before the collection is stored: files %v, %d trials reported", files, reported)
				}
				close(release)
				if err := <-done; !errors.Is(err, storeErr) {
					t.Fatalf("flush: %v, want %v", err, storeErr)
				}
			}
			files, _ := filepath.Glob(filepath.Join(run.Dir, "trials", "*"))
			trials, err := run.Trials()
			if err != nil {
				t.Fatal(err)
			}
			if storeErr != nil {
				if len(files) != 0 || reported != 0 || len(trials) != 0 {
					t.Errorf("after a failed store: files %v, %d reported, %d trials", files, reported, len(trials))
				}
				return
			}
			if len(files) != 1 || filepath.Base(files[0]) != "replayed-000.jsonl" || reported != 3 || len(trials) != 3 {
				t.Errorf("files %v, %d reported, %d trials: want one replayed-000.jsonl, 3 and 3", files, reported, len(trials))
			}
			if storedCalls == 0 {
				t.Error("the collection's wait was never called")
			}
		})
	}
}
