package tuner

import (
	"context"
	"errors"

	"github.com/fusiontune/fusiontune/experiments"
	"github.com/fusiontune/fusiontune/tuner/sampler"
)

// newEvaluator chooses, once, how a run's trials are scored: live (rung
// by rung with pruning when study and subsets say so), or, with o.Replay
// in mode replay or auto, replayed from collected candidate lists.
// ahead lists a fixed plan's trials in the order they will come, so that
// the replay scores a collection's trials together, on every core.
func newEvaluator(o Options, study *sampler.Study, subsets [][]int, known []experiments.TrialSpec, ahead []*trial) (evaluator, error) {
	live := &liveEval{o: o, study: study, subsets: subsets}
	if !replaying(o.Replay) {
		return live, nil
	}
	return newReplayEval(o, live, known, ahead)
}

// replaying reports whether r asks for replay (mode replay or auto).
func replaying(r *ReplayOptions) bool {
	return r != nil && r.Mode != ModeLive && r.Mode != ""
}

// liveEval applies each trial to the backend, restarting it when its
// config changed, and evaluates the golden set — rung by rung on growing
// query subsets when the study prunes.
type liveEval struct {
	o       Options
	study   *sampler.Study
	subsets [][]int
	ahead   *startAhead // the next trial's backend, started ahead (ahead.go)
}

func (e *liveEval) eval(ctx context.Context, t *trial) (trialOutcome, int, error) {
	return e.evalWith(ctx, t, nil)
}

// evalWith is eval; searched, when set, is called once t's last search is
// done (see Options.searched).
func (e *liveEval) evalWith(ctx context.Context, t *trial, searched func()) (trialOutcome, int, error) {
	o := e.o
	o.searched = searched
	extra := 0
	if a := e.take(); a != nil {
		if a.index == t.index {
			o.started = a
		} else if a.restarted {
			extra = 1 // started for another trial: counted, and t applies its own
		}
	}
	out, restarts, err := runStaged(ctx, o, t.index, t.spec, e.study, t.p, e.subsets, t.sampled)
	restarts += extra
	var se *studyError
	switch {
	case errors.As(err, &se):
		return out, restarts, se.err
	case err != nil && ctx.Err() != nil:
		return out, restarts, ctx.Err()
	}
	return out, restarts, nil // a backend failure is the trial's: recorded as failed
}

func (e *liveEval) resumed(*trial)                                      {}
func (e *liveEval) finish(context.Context, *Result, func() error) error { return nil }
