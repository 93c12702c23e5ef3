package tuner

import (
	"context"
	"errors"
	"slices"

	"github.com/fusiontune/fusiontune/experiments"
	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner/sampler"
)

// The trial loop. Every way of running trials — a sweep's fixed plan, a
// sampler study, a worker's share of a shared study — is one loop over a
// source of trials and an evaluator:
//
//	for trial := range source { outcome := evaluator.eval(trial); source.commit(trial, outcome) }
//
// The source decides which trial comes next and what finishing one means
// (tell the sampler, finish it in the study's database); the evaluator
// decides how a trial is scored (live, rung by rung with pruning, or
// replayed from collected candidate lists). Whether to replay is decided
// once, when the evaluator is chosen (newEvaluator).

// trial is one trial the loop runs.
type trial struct {
	index int // the trial's number in the run (its record's Index)
	total int // how many trials the run is expected to hold
	spec  experiments.TrialSpec
	// sampled is set for trials the sampler proposed: they may be pruned,
	// and their record names the sampler.
	sampled bool
	p       sampler.Proposal // the study's handle on the trial (zero without a study)
	// recorded is the trial's record when a resumed run holds it: it is
	// not run again.
	recorded *runs.TrialRecord
	// done, when set, is called once the trial is committed or given up
	// (a shared study's heartbeats stop).
	done func() error
}

// source yields a run's trials in order and makes their outcomes final.
type source interface {
	// next returns the next trial, or nil when there is none.
	next(ctx context.Context) (*trial, error)
	// commit records out durably through rec and tells whoever proposed
	// the trial. lost reports a trial the source no longer owns (a shared
	// study gave it to another worker): it is neither kept nor counted.
	commit(ctx context.Context, t *trial, out *trialOutcome, rec *runs.Recorder) (lost bool, err error)
	// abandon gives a trial that will not be committed back (interrupted,
	// or the run failed).
	abandon(t *trial, why string)
}

// evaluator scores trials.
type evaluator interface {
	// eval scores one trial. A backend failure is a failed outcome, not an
	// error: the error stops the loop (interruption, a failed study, a
	// backend without candidate lists in replay mode).
	eval(ctx context.Context, t *trial) (out trialOutcome, restarts int, err error)
	// resumed tells the evaluator about a trial a resumed run holds.
	resumed(t *trial)
	// finish runs after the last trial: replayed trials are verified live.
	// durable waits until every trial recorded is durable (and says why
	// not): nothing is recorded before it returns nil.
	finish(ctx context.Context, res *Result, durable func() error) error
}

// loop runs every trial of src through ev and records each durably before
// the next is asked for (replayed trials: before the next collection).
func loop(ctx context.Context, o Options, src source, ev evaluator) (*Result, error) {
	res := &Result{}
	rec := runs.NewRecorder(o.Run)
	tl := newTally(o.FailureBudget, o.MaxConsecutiveFailures)
	reuse := newReuser(o)
	err := func() error {
		for {
			t, err := src.next(ctx)
			if err != nil || t == nil {
				return err
			}
			if t.recorded != nil {
				reuse.done(t, *t.recorded)
				ev.resumed(t)
				res.Trials = append(res.Trials, *t.recorded)
				res.Skipped++
				o.Stats.Add(*t.recorded)
				continue
			}
			if err := ctx.Err(); err != nil {
				src.abandon(t, "interrupted")
				return err
			}
			if err := runOne(ctx, o, src, ev, rec, reuse, tl, res, t); err != nil {
				return err
			}
		}
	}()
	if as, ok := ev.(aheadStarter); ok {
		// A backend started for a trial the loop did not take (it
		// stopped first) is settled before anything else uses it.
		res.Restarts += as.settle()
	}
	return finishLoop(ctx, o, ev, rec, res, err)
}

// finishLoop ends the loop that left res and err (nil: every trial ran):
// the last records are made durable, and when the loop ended well the
// evaluator's finish (verification) runs beside that, and so do every
// trial's statistics once the records are durable. It returns the loop's
// error, else the records', else the finish's; a trial whose record
// failed is not in res.
func finishLoop(ctx context.Context, o Options, ev evaluator, rec *runs.Recorder, res *Result, err error) (*Result, error) {
	var finishErr, flushErr error
	if err == nil {
		// Verification records nothing, and reads no replayed trial
		// back, before the records are durable.
		trials := slices.Clone(res.Trials)
		finishErr, flushErr = rec.FlushBeside(func(durable func() error) error { return ev.finish(ctx, res, durable) }, func() {
			for _, t := range trials {
				o.Stats.Add(t)
			}
		})
	} else {
		flushErr = rec.Flush()
	}
	res.Recording, res.RecordingOverlapped = rec.Spent()
	for _, e := range []error{err, flushErr} {
		// A trial whose record failed in the background was counted
		// before it was durable: it is not in the run.
		var rf *runs.RecordFailure
		if errors.As(e, &rf) {
			res.Trials = dropTrial(res.Trials, rf.Index)
		}
	}
	if err != nil {
		return res, err
	}
	if flushErr != nil {
		return res, flushErr
	}
	return res, finishErr
}

// runOne evaluates trial t (or reuses an earlier trial's results),
// commits it through src and accounts for it in res and tl. An error
// ends the loop: a trial not committed is abandoned, for a resume (or
// another worker) to redo.
func runOne(ctx context.Context, o Options, src source, ev evaluator, rec *runs.Recorder, reuse *reuser, tl *tally, res *Result, t *trial) error {
	o.Progress.TrialStarted(t.index+1, t.total, t.spec.Name)
	// Trials that build the same index and answer alike as an earlier one
	// reuse its results (reuse.go).
	out, reused, err := reuse.reuse(o, rec, t)
	restarts := 0
	if err == nil && !reused {
		out, restarts, err = evalTrial(ctx, src, ev, reuse, t)
	}
	res.Restarts += restarts
	if err == nil {
		// The previous trial's record was being made durable while this
		// one ran: it must be before this one is committed, and an
		// interruption reported meanwhile (its progress line may have
		// stopped the run) leaves this trial to a resume.
		if err = rec.Wait(); err == nil {
			err = ctx.Err()
		}
	}
	if err != nil {
		why := err.Error()
		if ctx.Err() != nil {
			why = "interrupted"
		}
		src.abandon(t, why)
		return err
	}
	lost, err := src.commit(ctx, t, &out, rec)
	if err != nil {
		return err
	}
	if lost {
		o.Progress.TrialDone(t.index+1, t.total, out.TrialRecord, 0)
		return nil
	}
	reuse.done(t, out.TrialRecord)
	res.Trials = append(res.Trials, out.TrialRecord)
	eta, budgetErr := tl.done(out.TrialRecord, t.total-t.index-1)
	record := out.TrialRecord
	// Reported finished only once durable: the record is written while
	// the next trial applies its config and restarts the backend.
	rec.Then(func() {
		if !out.batched {
			// Its statistics start at once, beside the next trial.
			o.Stats.Add(record)
		}
		o.Progress.TrialDone(t.index+1, t.total, record, eta)
	})
	return budgetErr
}

// dropTrial removes the trial of the given index from trials.
func dropTrial(trials []runs.TrialRecord, index int) []runs.TrialRecord {
	for i, t := range trials {
		if t.Index == index {
			return append(trials[:i:i], trials[i+1:]...)
		}
	}
	return trials
}

// record makes out durable through rec: a live trial's record in the
// background, a replayed trial's through the batch of its collection.
func record(rec *runs.Recorder, out *trialOutcome) error {
	if !out.batched {
		return rec.Record(out.TrialRecord, out.results)
	}
	return rec.Batch(out.TrialRecord, out.results, runs.BatchEntry{Stored: out.stored, Last: out.last, Durable: out.durable})
}
