package tuner_test

import (
	"context"
	"io"
	"sync"
	"testing"
	"time"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/experiments"
	"github.com/fusiontune/fusiontune/tuner"
)

// printedLandscapes fingerprints trials by their parameters (none alike)
// and opens landscapes whose pre-flight start waits until the planned
// trials' fingerprints are computed (or gives up after a while and says
// so): a tuner that fingerprints a trial only when the trial starts never
// gets them while the backend starts.
type printedLandscapes struct {
	landscapes
	want int

	mu      sync.Mutex
	printed map[string]bool
	all     chan struct{}
	missed  bool
	had     int // fingerprints computed when the start gave up waiting
}

var _ backend.Fingerprinter = (*printedLandscapes)(nil)

func (f *printedLandscapes) Fingerprint(p map[string]any) (string, error) {
	k := experiments.Params(p).String()
	f.mu.Lock()
	defer f.mu.Unlock()
	f.printed[k] = true
	if len(f.printed) == f.want {
		close(f.all)
	}
	return k, nil
}

func (f *printedLandscapes) Open(dir string, log io.Writer) (backend.Backend, error) {
	b, err := f.landscapes.Open(dir, log)
	if err != nil {
		return nil, err
	}
	return &waitingStart{Backend: b, f: f}, nil
}

// waitingStart's first Ready (the pre-flight) waits for the fingerprints.
type waitingStart struct {
	backend.Backend
	f     *printedLandscapes
	ready int
}

func (b *waitingStart) Ready(ctx context.Context) error {
	b.ready++
	if b.ready == 1 {
		select {
		case <-b.f.all:
		case <-time.After(5 * time.Second):
			b.f.mu.Lock()
			b.f.missed, b.f.had = true, len(b.f.printed)
			b.f.mu.Unlock()
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return b.Backend.Ready(ctx)
}

// TestFingerprintsWhileBackendStarts: the trials' fingerprints (which
// read and chunk the corpus for the embedded engine) are computed while
// the backend's first start runs, not when each trial starts; the run's
// results are those of a run without them.
func TestFingerprintsWhileBackendStarts(t *testing.T) {
	trials := landscapeTrials()
	c := runConfig(t, trials, nil)
	f := &printedLandscapes{want: len(trials), printed: map[string]bool{}, all: make(chan struct{})}
	c.Backend = f
	out, err := tuner.Run(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	if f.missed {
		t.Errorf("the backend's first start ended before the %d trials were fingerprinted (%d were)", len(trials), f.had)
	}
	if len(out.Trials) != len(trials) {
		t.Errorf("%d trials, want %d", len(out.Trials), len(trials))
	}
	for _, tr := range out.Trials {
		if tr.ReusedFrom != "" {
			t.Errorf("trial %s reused %s: no two fingerprints are alike", tr.Name, tr.ReusedFrom)
		}
	}
}
