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
	"github.com/fusiontune/fusiontune/tuner"
)

// slowStop is a landscape whose Close waits until the run's leaderboard is
// written (at most a second), then fails: a service that stops slowly.
type slowStop struct {
	*landscape
	dir string

	mu     sync.Mutex
	saw    bool // the leaderboard was written while Close waited
	closed bool
}

func (b *slowStop) Close() error {
	deadline := time.Now().Add(time.Second)
	for time.Now().Before(deadline) {
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
	b *slowStop
}

func (f *slowStops) Open(dir string, _ io.Writer) (backend.Backend, error) {
	f.b = &slowStop{landscape: newLandscape(), dir: dir}
	return f.b, nil
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
