package pass

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

	// phases, when set, is told of every call (see Phases); searching
	// says the last call was a search.
	phases    *Phases
	searching bool

	// stopping is closed once the Close that Stop started has returned,
	// with stopErr and stoppedAt set (nil without a Stop).
	stopping  chan struct{}
	stopErr   error
	stoppedAt time.Time
}

// NewTimedBackend wraps b.
func NewTimedBackend(b backend.Backend) *TimedBackend { return &TimedBackend{Backend: b} }

// WithPhases marks every call on p (nil: none) and returns t.
func (t *TimedBackend) WithPhases(p *Phases) *TimedBackend {
	t.phases = p
	return t
}

// call marks, when phases are noted, the tuner's time before a call other
// than a search (named before) and returns the function that marks the
// call itself (named name) once it returns.
func (t *TimedBackend) call(before, name string) func() {
	if t.phases == nil {
		return func() {}
	}
	t.mu.Lock()
	t.searching = false
	t.mu.Unlock()
	t.phases.Mark(before)
	return func() { t.phases.Mark(name) }
}

func (t *TimedBackend) add(d *time.Duration, start time.Time) {
	el := time.Since(start)
	t.mu.Lock()
	*d += el
	t.mu.Unlock()
}

// Apply implements backend.Backend.
func (t *TimedBackend) Apply(ctx context.Context, params map[string]any) error {
	// Applying a config counts as the tuner's time (overhead).
	defer t.call("tuner: before apply", "tuner: apply")()
	defer t.add(&t.apply, time.Now())
	return t.Backend.Apply(ctx, params)
}

// Restart implements backend.Backend.
func (t *TimedBackend) Restart(ctx context.Context) error {
	defer t.call("tuner: before restart", "backend: restart")()
	defer t.add(&t.startStop, time.Now())
	return t.Backend.Restart(ctx)
}

// Ready implements backend.Backend.
func (t *TimedBackend) Ready(ctx context.Context) error {
	defer t.call("tuner: before ready", "backend: ready")()
	defer t.add(&t.startStop, time.Now())
	return t.Backend.Ready(ctx)
}

// Close implements backend.Backend.
func (t *TimedBackend) Close() error {
	defer t.call("tuner: before close", "backend: close")()
	defer t.add(&t.startStop, time.Now())
	return t.Backend.Close()
}

// Stop closes the backend in the background, so that the service stops
// while the tuner finishes the run (its stop is the backend's time, the
// analysis the tuner's: neither waits for the other), and returns the
// function that waits for the close and returns when it ended and its
// error. Timings waits for it too. The close is not marked in the phases,
// which note the tuner's own steps meanwhile.
func (t *TimedBackend) Stop() func() (time.Time, error) {
	done := make(chan struct{})
	t.mu.Lock()
	t.phases, t.stopping = nil, done
	t.mu.Unlock()
	go func() {
		err := t.Close()
		t.mu.Lock()
		t.stopErr, t.stoppedAt = err, time.Now()
		t.mu.Unlock()
		close(done)
	}()
	return func() (time.Time, error) {
		<-done
		t.mu.Lock()
		defer t.mu.Unlock()
		return t.stoppedAt, t.stopErr
	}
}

// Search implements backend.Backend.
func (t *TimedBackend) Search(ctx context.Context, req backend.SearchRequest) (backend.SearchResponse, error) {
	defer t.searchBegins()()
	return t.Backend.Search(ctx, req)
}

// searchBegins counts a search (or a batch of them) in flight from now
// until the returned function is called: the search time is the union of
// the intervals during which at least one is in flight.
func (t *TimedBackend) searchBegins() (ends func()) {
	t.mu.Lock()
	if t.inFlight == 0 {
		t.busySince = time.Now()
		if t.phases != nil {
			// The tuner's time since the previous call: before a
			// trial's first search, or between two of its searches.
			before := "tuner: before searches"
			if t.searching {
				before = "tuner: between searches"
			}
			t.phases.MarkAt(before, t.busySince)
			t.searching = true
		}
	}
	t.inFlight++
	t.mu.Unlock()
	return func() {
		t.mu.Lock()
		t.inFlight--
		if t.inFlight == 0 {
			now := time.Now()
			t.search += now.Sub(t.busySince)
			t.phases.MarkAt("backend: searches", now)
		}
		t.mu.Unlock()
	}
}

// NeedsRestart forwards to the wrapped backend (true when it cannot tell).
func (t *TimedBackend) NeedsRestart() bool {
	if r, ok := t.Backend.(backend.Restarter); ok {
		return r.NeedsRestart()
	}
	return true
}

// StoppedBy waits for the close a Stop started, if any, and returns the
// later of end and when that close ended: a sweep whose backend stops
// beside its analysis ends when both have, and its wall time must cover
// the whole close that Timings counts as start/stop time (else a close
// outlasting the analysis is subtracted from a wall time that does not
// hold it, and the overhead comes out too small, even negative).
func (t *TimedBackend) StoppedBy(end time.Time) time.Time {
	t.mu.Lock()
	stopping := t.stopping
	t.mu.Unlock()
	if stopping == nil {
		return end
	}
	<-stopping
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.stoppedAt.After(end) {
		return t.stoppedAt
	}
	return end
}

// Timings splits wall (the sweep's wall time) into backend start/stop,
// search requests and the tuner's own overhead.
func (t *TimedBackend) Timings(wall time.Duration) runs.Timings {
	t.mu.Lock()
	stopping := t.stopping
	t.mu.Unlock()
	if stopping != nil {
		<-stopping // its close is start/stop time
	}
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
