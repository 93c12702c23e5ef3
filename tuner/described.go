package tuner

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/fusiontune/fusiontune/experiments"
)

// described keeps the backend configs of a run's planned trials (the
// factory's Describe, which renders each trial's config file), rendered
// in the background while the backend first starts, so that rendering is
// off the trial loop's path: each trial's record holds its config, and
// the loop would otherwise render it between one trial's searches and the
// next trial's apply. Trials not prefetched (a study's) are described when
// asked. The configs are the same strings either way.
type described struct {
	describe func(map[string]any) string
	mu       sync.Mutex
	memo     map[string]string // by the params' JSON encoding
}

func newDescribed(describe func(map[string]any) string) *described {
	return &described{describe: describe, memo: map[string]string{}}
}

// get returns p's config, from the prefetched ones when it is there.
func (d *described) get(p experiments.Params) string {
	key, err := json.Marshal(p)
	if err == nil {
		d.mu.Lock()
		s, ok := d.memo[string(key)]
		d.mu.Unlock()
		if ok {
			return s
		}
	}
	return d.describe(p)
}

// prefetch describes trials, in order, in the background until done or
// ctx ends; wait waits for it.
func (d *described) prefetch(ctx context.Context, trials []experiments.TrialSpec) (wait func()) {
	return prefetchEach(ctx, trials, d.store)
}

// store describes p and keeps its config for get.
func (d *described) store(p experiments.Params) {
	key, err := json.Marshal(p)
	if err != nil {
		return
	}
	s := d.describe(p)
	d.mu.Lock()
	d.memo[string(key)] = s
	d.mu.Unlock()
}

// prefetchEach calls do with each trial's params, in order, in the
// background until done or ctx ends; wait waits for it.
func prefetchEach(ctx context.Context, trials []experiments.TrialSpec, do func(experiments.Params)) (wait func()) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		for _, t := range trials {
			if ctx.Err() != nil {
				return
			}
			do(t.Params)
		}
	}()
	return func() { <-done }
}
