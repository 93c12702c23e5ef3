package analysis

import (
	"context"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fusiontune/fusiontune/runs"
)

// TestPreStatsWiden: while the trials run the precomputations take one
// slot at a time (beside the backend); once widened they run on every
// core, and wait widens too.
func TestPreStatsWiden(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(3))
	for _, tc := range []struct {
		name  string
		widen func(p *Prestats)
	}{
		{"widen", func(p *Prestats) { p.Widen() }},
		{"wait", func(p *Prestats) { p.Wait() }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			store, err := runs.Open(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			run, err := store.Create(runs.Manifest{}, time.Now())
			if err != nil {
				t.Fatal(err)
			}
			p := NewPrestats(context.Background(), run, StatsOptions{}, 1)
			var running, most atomic.Int64
			release := make(chan struct{})
			for range 3 {
				p.start(func() {
					n := running.Add(1)
					for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
					}
					<-release
					running.Add(-1)
				})
			}
			time.Sleep(50 * time.Millisecond)
			if got := most.Load(); got != 1 {
				t.Fatalf("before widen: %d computations at once, want 1", got)
			}
			go tc.widen(p)
			deadline := time.Now().Add(5 * time.Second)
			for running.Load() < 3 && time.Now().Before(deadline) {
				time.Sleep(time.Millisecond)
			}
			if got := running.Load(); got != 3 {
				t.Fatalf("after widen: %d computations at once, want 3 (GOMAXPROCS)", got)
			}
			close(release)
			p.Wait()
			p.Widen() // twice: nothing more to free
		})
	}
}
