package tuner

import (
	"context"
	"sync"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/experiments"
)

// fingerprints memoizes a backend's trial fingerprints (see reuser) and
// computes those of the planned trials in the background while the
// backend starts: for the embedded engine the first of each chunk setting
// reads and chunks the whole corpus, which would otherwise hold up the
// trial that needs it. One call at a time reaches the backend.
type fingerprints struct {
	f    backend.Fingerprinter
	mu   sync.Mutex
	memo map[string]fingerprint
}

type fingerprint struct {
	key string
	err error
}

// newFingerprints returns nil for a backend without fingerprints.
func newFingerprints(b backend.Factory) *fingerprints {
	f, ok := b.(backend.Fingerprinter)
	if !ok {
		return nil
	}
	return &fingerprints{f: f, memo: map[string]fingerprint{}}
}

// get returns p's fingerprint, computing it unless it was.
func (fs *fingerprints) get(p experiments.Params) (string, error) {
	id := p.String()
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if r, ok := fs.memo[id]; ok {
		return r.key, r.err
	}
	k, err := fs.f.Fingerprint(p)
	fs.memo[id] = fingerprint{k, err}
	return k, err
}

// prefetch computes the fingerprints of trials, in order, in the
// background until done or ctx ends; wait waits for it.
func (fs *fingerprints) prefetch(ctx context.Context, trials []experiments.TrialSpec) (wait func()) {
	return prefetchEach(ctx, trials, func(p experiments.Params) { fs.get(p) })
}
