package tuner

import "github.com/fusiontune/fusiontune/backend"

// prewarmFingerprint computes, in the background, the fingerprint of the
// trial the pre-flight starts the backend on, so that a fingerprinting
// factory's one-time work (the embedded engine reads and chunks the
// corpus, a fifth of a second on SciFact) overlaps the backend's start
// instead of delaying the first trial, which asks for it (reuse.go). The
// factory keeps what it computed; an error is not reported here: the
// first trial's own call meets it again. wait returns once the
// computation is done.
func (c Config) prewarmFingerprint() (wait func()) {
	fp, ok := c.Backend.(backend.Fingerprinter)
	spec, any := preflightSpec(c.Trials)
	if !ok || !any {
		return func() {}
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = fp.Fingerprint(spec.Params)
	}()
	return func() { <-done }
}
