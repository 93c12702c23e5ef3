package tuner_test

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner"
)

// slowStop is a landscape whose Close waits until the run's leaderboard is
// written (at most a second), then fails: a service that stops slowly.
type slowStop struct {
	*landscape
	dir   string
	quick bool

	mu     sync.Mutex
	saw    bool // the leaderboard was written while Close waited
	closed bool
}

func (b *slowStop) Close() error {
	deadline := time.Now().Add(time.Second)
	for !b.quick && time.Now().Before(deadline) {
		if _, err := os.Stat(filepath.Join(b.dir, "..", "leaderboard.json")); err == nil {
			b.mu.Lock()
			b.saw = true
			b.mu.Unlock()
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	b.mu.Lock()
	b.closed = true
	b.mu.Unlock()
	return errors.New("service did not stop in time")
}

type slowStops struct {
	landscapes
	quick bool // Close returns at once

	mu sync.Mutex
	b  *slowStop
}

func (f *slowStops) Open(dir string, _ io.Writer) (backend.Backend, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.b = &slowStop{landscape: newLandscape(), dir: dir, quick: f.quick}
	return f.b, nil
}

// opened is the backend opened last (nil before).
func (f *slowStops) opened() *slowStop {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.b
}

// TestRunStopsBesideTheAnalysis: the backend stops while the run's
// statistics, leaderboard and report are made (its stop is the backend's
// time, the analysis the tuner's); the stop's time counts as start/stop
// time, its error is the run's, and Run returns only once it has stopped.
func TestRunStopsBesideTheAnalysis(t *testing.T) {
	c := runConfig(t, landscapeTrials(), nil)
	f := &slowStops{}
	c.Backend = f
	out, err := tuner.Run(context.Background(), c)
	if err == nil || !strings.Contains(err.Error(), "stop backend: service did not stop in time") {
		t.Fatalf("err = %v, want the stop's error", err)
	}
	f.b.mu.Lock()
	saw, closed := f.b.saw, f.b.closed
	f.b.mu.Unlock()
	if !saw {
		t.Error("the leaderboard was not written while the backend stopped")
	}
	if !closed {
		t.Error("Run returned before the backend stopped")
	}
	checkFinished(t, out, 3, 0)
	tm := out.Timings
	if tm.StartStopSeconds <= 0 || tm.OverheadSeconds < 0 || tm.WallSeconds < tm.StartStopSeconds+tm.SearchSeconds {
		t.Errorf("timings %+v", tm)
	}
	if out.Elapsed <= 0 {
		t.Errorf("elapsed %v", out.Elapsed)
	}
}

// TestRunSnapshotsWhileTheBackendStarts: a new run's inputs are written
// while the backend starts (the snapshot waits here until the first
// restart), and the trials run once they are written.
func TestRunSnapshotsWhileTheBackendStarts(t *testing.T) {
	c := runConfig(t, landscapeTrials(), nil)
	f := &slowStops{quick: true}
	c.Backend = f
	var restarted bool
	c.Snapshot = func(run *runs.Run) error {
		deadline := time.Now().Add(2 * time.Second)
		for time.Now().Before(deadline) && !restarted {
			if b := f.opened(); b != nil {
				r, _ := b.counts()
				restarted = r > 0
			}
			time.Sleep(2 * time.Millisecond)
		}
		return run.WriteFile("snapshot.txt", []byte("inputs\n"))
	}
	out, err := tuner.Run(context.Background(), c)
	if out == nil {
		t.Fatal(err)
	}
	if !restarted {
		t.Error("the snapshot was written before the backend started")
	}
	if _, err := os.Stat(filepath.Join(out.Run.Dir, "snapshot.txt")); err != nil {
		t.Error(err)
	}
	checkFinished(t, out, 3, 0)
}

// TestRunSnapshotFails: a run whose inputs cannot be snapshotted runs no
// trial, stops its backend and leaves no directory behind.
func TestRunSnapshotFails(t *testing.T) {
	c := runConfig(t, landscapeTrials(), nil)
	f := &slowStops{quick: true}
	c.Backend = f
	c.Snapshot = func(*runs.Run) error { return errors.New("snapshot: disk full") }
	out, err := tuner.Run(context.Background(), c)
	if out != nil || err == nil || !strings.Contains(err.Error(), "snapshot: disk full") || !strings.Contains(err.Error(), "no trial ran; the run directory") {
		t.Fatalf("out %v, err %v", out, err)
	}
	if !f.b.closed {
		t.Error("the backend was not stopped")
	}
	if _, searches := f.b.counts(); searches > 0 {
		t.Errorf("%d searches: a trial ran", searches)
	}
	runsDir := c.Store.Dir
	entries, _ := os.ReadDir(runsDir)
	for _, e := range entries {
		if e.IsDir() {
			t.Errorf("left behind: %s", filepath.Join(runsDir, e.Name()))
		}
	}
}
