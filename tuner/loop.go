package tuner

import (
	"context"
	"fmt"
	"time"

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
	commit(ctx context.Context, t *trial, out *trialOutcome, rec *recorder) (lost bool, err error)
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
	finish(ctx context.Context, res *Result) error
}

// loop runs every trial of src through ev and records each durably before
// the next is asked for (replayed trials: before the next collection).
func loop(ctx context.Context, o Options, src source, ev evaluator) (*Result, error) {
	res := &Result{}
	rec := &recorder{run: o.Run}
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
				o.pre.add(*t.recorded)
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
	flushErr := rec.flush()
	res.Recording = rec.spent
	if err != nil {
		return res, err
	}
	if flushErr != nil {
		return res, flushErr
	}
	// Every trial is durable: the replayed trials' statistics run while
	// the best of them are verified live.
	for _, t := range res.Trials {
		o.pre.add(t)
	}
	return res, ev.finish(ctx, res)
}

// runOne evaluates trial t (or reuses an earlier trial's results),
// commits it through src and accounts for it in res and tl. An error
// ends the loop: a trial not committed is abandoned, for a resume (or
// another worker) to redo.
func runOne(ctx context.Context, o Options, src source, ev evaluator, rec *recorder, reuse *reuser, tl *tally, res *Result, t *trial) error {
	o.Progress.TrialStarted(t.index+1, t.total, t.spec.Name)
	// Trials that build the same index and answer alike as an earlier one
	// reuse its results (reuse.go).
	out, reused, err := reuse.reuse(o, rec, t)
	restarts := 0
	if err == nil && !reused {
		out, restarts, err = ev.eval(ctx, t)
	}
	res.Restarts += restarts
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
	if !out.batched {
		// Durable: its statistics start while the next trial applies its
		// config and restarts the backend.
		o.pre.add(out.TrialRecord)
	}
	eta, budgetErr := tl.done(out.TrialRecord, t.total-t.index-1)
	o.Progress.TrialDone(t.index+1, t.total, out.TrialRecord, eta)
	return budgetErr
}

// recorder makes trial outcomes durable: a live trial's record and
// per-query results at once; replayed trials, a millisecond each, through
// one batch per collection (see runs.TrialBatch), flushed when the
// evaluator says the collection's trials are done or before anything else
// is recorded.
type recorder struct {
	run   *runs.Run
	batch *runs.TrialBatch
	log   func(durable time.Duration) // says the batch is durable
	spent time.Duration               // time spent making records durable
}

func (r *recorder) record(out *trialOutcome) error {
	if !out.batched {
		if err := r.flush(); err != nil {
			return err
		}
		began := time.Now()
		err := r.run.RecordTrial(out.TrialRecord, out.results)
		r.spent += time.Since(began)
		if err != nil {
			return fmt.Errorf("record trial %q: %w", out.Name, err)
		}
		return nil
	}
	if r.batch == nil {
		r.batch = r.run.NewTrialBatch()
	}
	enc, err := runs.EncodeTrial(out.TrialRecord, out.results)
	if err == nil {
		err = r.batch.Add(enc)
	}
	if err != nil {
		return fmt.Errorf("record trial %q: %w", out.Name, err)
	}
	r.log = out.durable
	if out.last {
		return r.flush()
	}
	return nil
}

// flush makes the batched records durable.
func (r *recorder) flush() error {
	if r.batch == nil {
		return nil
	}
	began := time.Now()
	err := r.batch.Flush()
	took := time.Since(began)
	r.spent += took
	r.batch = nil
	if r.log != nil && err == nil {
		r.log(took)
	}
	r.log = nil
	return err
}
