package tuner

import (
	"context"
	"reflect"
	"runtime"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/tuner/pass"
)

// Starting the next trial's backend ahead. A live trial ends with its
// last search; what follows until the next trial's config is applied —
// summarizing its results, committing its record, taking the next trial
// from the source — is the tuner's time, and the backend waits for it.
// When the next trial is known (a fixed plan) and will run (no earlier
// trial answers for it), its config is applied and the backend restarted
// as soon as the last search returns, beside that work: the restart takes
// milliseconds, the work a fraction of one. The trial then finds its
// backend started (or why it could not be); nothing else changes.

// aheadBackend is a live sweep's backend that can start a configuration
// ahead of the trial that will apply it (start): that trial's Apply takes
// the start made ahead — its error included — and its NeedsRestart asks
// for a restart again only if the service died since. Any other call
// waits for a start under way first.
type aheadBackend struct {
	backend.Backend
	next *startAhead
	// took says the last Apply took a start made ahead.
	took bool
	// restarts counts the restarts made ahead (taken or not).
	restarts int
}

// startAhead is a configuration started ahead: applied and, when that
// needed one, a restart until ready.
type startAhead struct {
	params    map[string]any
	done      chan struct{}
	restarted bool
	err       error // why it failed: the trial that takes it fails with it
}

// start begins params' configuration in the background: apply it and,
// when the backend needs it, restart and wait until ready.
func (b *aheadBackend) start(ctx context.Context, params map[string]any) {
	b.settle()
	a := &startAhead{params: params, done: make(chan struct{})}
	b.next = a
	go func() {
		defer close(a.done)
		a.restarted, a.err = pass.Start(ctx, b.Backend, params, false)
	}()
	// Run it now, up to its first wait (the old service stopping): with
	// the other core busy, a new goroutine would otherwise wait for this
	// one to block, at the next trial, and start nothing ahead.
	runtime.Gosched()
}

// take waits for the start under way, if any, counts its restart and
// returns it (nil without one).
func (b *aheadBackend) take() *startAhead {
	a := b.next
	if a == nil {
		return nil
	}
	b.next = nil
	<-a.done
	if a.restarted {
		b.restarts++
	}
	return a
}

// settle waits for a start no trial took and returns the restarts made
// ahead so far.
func (b *aheadBackend) settle() int {
	b.take()
	return b.restarts
}

// Apply implements backend.Backend: params' start made ahead is taken
// (its error returned); any other start under way is waited for, then
// params applied.
func (b *aheadBackend) Apply(ctx context.Context, params map[string]any) error {
	b.took = false
	if a := b.take(); a != nil && reflect.DeepEqual(a.params, params) {
		b.took = a.err == nil
		return a.err
	}
	return b.Backend.Apply(ctx, params)
}

// NeedsRestart implements backend.Restarter: after a start made ahead,
// only when the service died since (a backend that cannot tell is not
// restarted again); otherwise as the wrapped backend says (always when it
// cannot tell).
func (b *aheadBackend) NeedsRestart() bool {
	r, ok := b.Backend.(backend.Restarter)
	if b.took {
		b.took = false
		return ok && r.NeedsRestart()
	}
	return !ok || r.NeedsRestart()
}

// Restart implements backend.Backend once any start under way is done.
func (b *aheadBackend) Restart(ctx context.Context) error {
	b.take()
	return b.Backend.Restart(ctx)
}

// peeker is a source that can tell its next trial without taking it.
type peeker interface {
	peek() *trial
}

// peek implements peeker: a plan's next trial, nil after the last.
func (s *planSource) peek() *trial {
	if s.pos >= len(s.trials) {
		return nil
	}
	return s.trials[s.pos]
}

// aheadStarter is an evaluator that can start a trial's backend while it
// finishes the trial before (liveEval).
type aheadStarter interface {
	// evalThen evaluates t as eval does, then, once t's searches are
	// done, starts next's backend in the background.
	evalThen(ctx context.Context, t, next *trial) (trialOutcome, int, error)
	// settle waits for a start no trial took and returns the restarts
	// made ahead.
	settle() int
}

// nextToStart returns the trial after t whose backend may be started
// ahead: the source's next when it can tell it, it is not recorded
// already (a resume) and no trial answers for it (reuse: neither an
// earlier trial nor t has its fingerprint). Otherwise nil.
func nextToStart(src source, reuse *reuser, t *trial) *trial {
	pk, ok := src.(peeker)
	if !ok {
		return nil
	}
	next := pk.peek()
	if next == nil || next.recorded != nil {
		return nil
	}
	if k := reuse.key(next); k != "" {
		if _, ok := reuse.first[k]; ok || k == reuse.key(t) {
			return nil
		}
	}
	return next
}

// evalTrial evaluates t through ev, starting the next trial's backend
// ahead when ev can and the source tells which trial is next.
func evalTrial(ctx context.Context, src source, ev evaluator, reuse *reuser, t *trial) (trialOutcome, int, error) {
	if as, ok := ev.(aheadStarter); ok {
		if next := nextToStart(src, reuse, t); next != nil {
			return as.evalThen(ctx, t, next)
		}
	}
	return ev.eval(ctx, t)
}

// settle implements aheadStarter.
func (e *liveEval) settle() int { return e.ahead.settle() }

// evalThen implements aheadStarter.
func (e *liveEval) evalThen(ctx context.Context, t, next *trial) (trialOutcome, int, error) {
	return e.evalWith(ctx, t, func() { e.ahead.start(ctx, next.spec.Params) })
}
