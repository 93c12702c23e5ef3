package pass_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/fusiontune/fusiontune/tuner/pass"

	"github.com/fusiontune/fusiontune/backend"
)

// barrierBackend's searches wait until n of them are in flight, then
// sleep a little: concurrent searches overlap by construction.
type barrierBackend struct {
	n       int
	mu      sync.Mutex
	in      int
	all     chan struct{}
	restart bool
}

func (b *barrierBackend) Ready(context.Context) error                 { return nil }
func (b *barrierBackend) Apply(context.Context, map[string]any) error { return nil }
func (b *barrierBackend) Restart(context.Context) error               { time.Sleep(5 * time.Millisecond); return nil }
func (b *barrierBackend) Close() error                                { return nil }
func (b *barrierBackend) NeedsRestart() bool                          { return b.restart }
func (b *barrierBackend) Search(ctx context.Context, _ backend.SearchRequest) (backend.SearchResponse, error) {
	b.mu.Lock()
	b.in++
	if b.in == b.n {
		close(b.all)
	}
	b.mu.Unlock()
	<-b.all
	time.Sleep(20 * time.Millisecond)
	return backend.SearchResponse{}, nil
}

func TestTimedBackend(t *testing.T) {
	inner := &barrierBackend{n: 4, all: make(chan struct{})}
	b := pass.NewTimedBackend(inner)
	if b.NeedsRestart() {
		t.Error("NeedsRestart not forwarded (inner says false)")
	}
	inner.restart = true
	if !b.NeedsRestart() {
		t.Error("NeedsRestart not forwarded (inner says true)")
	}
	start := time.Now()
	if err := b.Restart(context.Background()); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var sum time.Duration
	for range inner.n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := time.Now()
			b.Search(context.Background(), backend.SearchRequest{Query: "q"})
			mu.Lock()
			sum += time.Since(s)
			mu.Unlock()
		}()
	}
	wg.Wait()
	wall := time.Since(start)
	got := b.Timings(wall)
	// Overlapping searches count once: the union is shorter than the sum
	// of the individual requests (each of which waited 20 ms after all
	// four were in flight).
	if got.SearchSeconds <= 0 || got.SearchSeconds >= sum.Seconds() {
		t.Errorf("search time %.4fs, sum of requests %.4fs: want the union, below the sum", got.SearchSeconds, sum.Seconds())
	}
	if got.StartStopSeconds <= 0 {
		t.Errorf("start/stop time %v", got.StartStopSeconds)
	}
	if d := got.WallSeconds - got.StartStopSeconds - got.SearchSeconds - got.OverheadSeconds; d > 1e-9 || d < -1e-9 {
		t.Errorf("wall %.6f != start/stop + search + overhead (off by %g)", got.WallSeconds, d)
	}
	if d := got.OverheadShare - got.OverheadSeconds/got.WallSeconds; d > 1e-9 || d < -1e-9 {
		t.Errorf("share %v", got.OverheadShare)
	}
}
