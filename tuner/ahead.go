package tuner

import (
	"context"
	"github.com/fusiontune/fusiontune/tuner/pass"
	"runtime"
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
	// settle waits for a start no trial took (the loop ended before it)
	// and returns the restarts it made.
	settle() int
}

// startAhead is a trial's backend started ahead: its config applied and,
// when that needed one, a restart until ready.
type startAhead struct {
	index     int // the trial it is for
	done      chan struct{}
	restarted bool
	err       error // why it failed: the trial fails with it
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

// start begins next's backend in the background: apply its config and,
// when the backend needs it, restart and wait until ready.
func (e *liveEval) start(ctx context.Context, next *trial) {
	a := &startAhead{index: next.index, done: make(chan struct{})}
	e.ahead = a
	go func() {
		defer close(a.done)
		a.restarted, a.err = pass.Start(ctx, e.o.Backend, next.spec.Params, false)
	}()
	// Run it now, up to its first wait (the old service stopping): with
	// the other core busy, a new goroutine would otherwise wait for this
	// one to block, at the next trial, and start nothing ahead.
	runtime.Gosched()
}

// take waits for the start under way, if any, and returns it (nil
// without one).
func (e *liveEval) take() *startAhead {
	a := e.ahead
	if a == nil {
		return nil
	}
	e.ahead = nil
	<-a.done
	return a
}

// settle implements aheadStarter.
func (e *liveEval) settle() int {
	if a := e.take(); a != nil && a.restarted {
		return 1
	}
	return 0
}

// evalThen implements aheadStarter.
func (e *liveEval) evalThen(ctx context.Context, t, next *trial) (trialOutcome, int, error) {
	return e.evalWith(ctx, t, func() { e.start(ctx, next) })
}
