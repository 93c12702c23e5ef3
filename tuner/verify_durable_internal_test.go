package tuner

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner/replay"
)

// TestVerificationWaitsForDurable: a verified trial is recorded only once
// the records before it are durable (verifyOptions.durable returns nil), and
// not at all when they could not be made so: settleAll waits, then
// writes; or returns that error with nothing written. replaysOf reads a
// replayed trial back only then too.
func TestVerificationWaitsForDurable(t *testing.T) {
	for _, flushErr := range []error{nil, errors.New("disk full")} {
		t.Run(errString(flushErr), func(t *testing.T) {
			run := newTestRun(t)
			release := make(chan struct{})
			o := verifyOptions{Options: Options{Run: run}, durable: func() error { <-release; return flushErr }}
			rec := trialOutcome{TrialRecord: runs.TrialRecord{Index: 3, Name: "t3", Status: runs.StatusOK, Mode: runs.TrialVerified,
				Summary: runs.Summary{Scorecard: map[string]float64{}}}}
			enc, err := runs.EncodeTrial(rec.TrialRecord, nil)
			if err != nil {
				t.Fatal(err)
			}
			res := &Result{Trials: []runs.TrialRecord{rec.TrialRecord}}
			recorded := replay.Of(run) // as verify does, before its passes
			done := make(chan error, 1)
			go func() {
				done <- settleAll(o, ReplayOptions{Log: io.Discard}, res, recorded, []settlement{{rec: rec, enc: enc, how: "test"}}, time.Now())
			}()
			read := replaysOf(o, []runs.TrialRecord{rec.TrialRecord})[0]
			readDone := make(chan error, 1)
			go func() { _, err := read(); readDone <- err }()
			select {
			case err := <-done:
				t.Fatalf("recorded (%v) before the records before were durable", err)
			case err := <-readDone:
				t.Fatalf("read a replayed trial back (%v) before the records were durable", err)
			case <-time.After(50 * time.Millisecond):
			}
			if _, err := os.Stat(filepath.Join(run.Dir, runs.TrialsDir, "003.json")); !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("trial written before the records before were durable: %v", err)
			}
			close(release)
			err = <-done
			if rerr := <-readDone; flushErr != nil && !errors.Is(rerr, flushErr) {
				t.Errorf("read back: %v, want %v", rerr, flushErr)
			}
			_, statErr := os.Stat(filepath.Join(run.Dir, runs.TrialsDir, "003.json"))
			if flushErr != nil {
				if !errors.Is(err, flushErr) || !errors.Is(statErr, os.ErrNotExist) {
					t.Errorf("after a failed flush: %v (want %v), trial file %v (want none)", err, flushErr, statErr)
				}
				return
			}
			if err != nil || statErr != nil {
				t.Errorf("settle: %v, trial file: %v", err, statErr)
			}
		})
	}
}

func errString(err error) string {
	if err == nil {
		return "durable"
	}
	return err.Error()
}
