package tuner

import (
	"context"

	"github.com/fusiontune/fusiontune/tuner/sampler"
)

// Search runs a sampler study: first the experiment file's own trials
// (o.Trials, in plan order, told to the study as observations), then
// so.Trials trials proposed by the sampler, named "<sampler>-001", ….
// Each trial is applied, restarted only when needed, evaluated — rung by
// rung on growing query subsets when pruning is on — scored and recorded
// durably before the next is asked for.
//
// With o.Replay in mode replay or auto, a trial that differs from an
// earlier one only in query-time parameters (see experiments.Replayable) is fused
// offline from the candidate lists collected for that earlier one, and the
// first trial of each new group collects them (one live run of the golden
// set with explain); the study is told replayed trials like live ones, and
// since replay equals live, the same seed proposes the same trials in
// either mode (without pruning: replayed trials are scored on every query
// and never pruned). After the last trial the best replayed ones are
// verified live as Sweep's are (verify). In auto mode a backend without
// candidate lists runs the remaining trials live; in replay mode the
// search fails with ErrNoCandidates.
//
// A resumed run does not redo recorded trials: with the default in-memory
// storage the study is rebuilt by asking the sampler again for each
// recorded trial (the seeded sampler proposes the same parameters, which
// is checked) and telling it the recorded outcome, so the trials that
// follow are the ones an uninterrupted run would have made.
func Search(ctx context.Context, o Options, so sampler.Options) (*Result, error) {
	if o.Progress == nil {
		o.Progress = nopProgress{}
	}
	study, err := sampler.New(so)
	if err != nil {
		return nil, err
	}
	so = study.Options()
	src, err := newStudySource(o, study)
	if err != nil {
		return nil, err
	}
	ev, err := newEvaluator(o, study, rungSubsets(o.Queries, so.Seed, so.Pruning), src.fixed, nil)
	if err != nil {
		return nil, err
	}
	return loop(ctx, o, src, ev)
}
