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
	live := newLiveEval(o, study, subsets)
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
	ahead   *aheadBackend // the backend, with the next trial started ahead (ahead.go)
}

// newLiveEval returns the live evaluator of o's trials (study and subsets:
// rung by rung with pruning).
func newLiveEval(o Options, study *sampler.Study, subsets [][]int) *liveEval {
	return &liveEval{o: o, study: study, subsets: subsets, ahead: &aheadBackend{Backend: o.Backend}}
}

func (e *liveEval) eval(ctx context.Context, t *trial) (trialOutcome, int, error) {
	return e.evalWith(ctx, t, nil)
}

// evalWith is eval; searched, when set, is called once t's last search is
// done (the next trial's backend then starts ahead).
func (e *liveEval) evalWith(ctx context.Context, t *trial, searched func()) (trialOutcome, int, error) {
	o := e.o
	o.Backend = e.ahead
	out, restarts, err := runStaged(ctx, o, t.index, t.spec, e.study, t.p, e.subsets, t.sampled, searched)
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
