package tuner

import (
	"context"
	"sync"
	"time"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/runs"
)

// TimedBackend wraps a Backend and measures where a sweep's time goes:
// in Apply, in stopping and starting the service (Restart, Ready, Close),
// and in search requests (the union of the intervals during which at least
// one search is in flight, so concurrent searches are not counted twice).
// It forwards NeedsRestart, so the sweep restarts exactly as without it.
type TimedBackend struct {
	backend.Backend

	mu        sync.Mutex
	apply     time.Duration
	startStop time.Duration
	search    time.Duration
	inFlight  int
	busySince time.Time
}

// NewTimedBackend wraps b.
func NewTimedBackend(b backend.Backend) *TimedBackend { return &TimedBackend{Backend: b} }

func (t *TimedBackend) add(d *time.Duration, start time.Time) {
	el := time.Since(start)
	t.mu.Lock()
	*d += el
	t.mu.Unlock()
}

// Apply implements backend.Backend.
func (t *TimedBackend) Apply(ctx context.Context, params map[string]any) error {
	defer t.add(&t.apply, time.Now())
	return t.Backend.Apply(ctx, params)
}

// Restart implements backend.Backend.
func (t *TimedBackend) Restart(ctx context.Context) error {
	defer t.add(&t.startStop, time.Now())
	return t.Backend.Restart(ctx)
}

// Ready implements backend.Backend.
func (t *TimedBackend) Ready(ctx context.Context) error {
	defer t.add(&t.startStop, time.Now())
	return t.Backend.Ready(ctx)
}

// Close implements backend.Backend.
func (t *TimedBackend) Close() error {
	defer t.add(&t.startStop, time.Now())
	return t.Backend.Close()
}

// Search implements backend.Backend.
func (t *TimedBackend) Search(ctx context.Context, req backend.SearchRequest) (backend.SearchResponse, error) {
	t.mu.Lock()
	if t.inFlight == 0 {
		t.busySince = time.Now()
	}
	t.inFlight++
	t.mu.Unlock()
	defer func() {
		t.mu.Lock()
		t.inFlight--
		if t.inFlight == 0 {
			t.search += time.Since(t.busySince)
		}
		t.mu.Unlock()
	}()
	return t.Backend.Search(ctx, req)
}

// NeedsRestart forwards to the wrapped backend (true when it cannot tell).
func (t *TimedBackend) NeedsRestart() bool {
	if r, ok := t.Backend.(backend.Restarter); ok {
		return r.NeedsRestart()
	}
	return true
}

// Timings splits wall (the sweep's wall time) into backend start/stop,
// search requests and the tuner's own overhead.
func (t *TimedBackend) Timings(wall time.Duration) runs.Timings {
	t.mu.Lock()
	defer t.mu.Unlock()
	over := wall - t.startStop - t.search
	out := runs.Timings{
		WallSeconds:      wall.Seconds(),
		StartStopSeconds: t.startStop.Seconds(),
		SearchSeconds:    t.search.Seconds(),
		ApplySeconds:     t.apply.Seconds(),
		OverheadSeconds:  over.Seconds(),
	}
	if wall > 0 {
		out.OverheadShare = float64(over) / float64(wall)
	}
	return out
}
