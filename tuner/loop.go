package tuner

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
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
	// durable waits until every trial recorded is durable (and says why
	// not): nothing is recorded before it returns nil.
	finish(ctx context.Context, res *Result, durable func() error) error
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
				o.pre.Add(*t.recorded)
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
func finishLoop(ctx context.Context, o Options, ev evaluator, rec *recorder, res *Result, err error) (*Result, error) {
	durable := sync.OnceValue(rec.flush)
	var finishErr error
	spent := rec.spent // the loop's waits for its records
	if err == nil {
		// Verification records nothing, and reads no replayed trial
		// back, before the records are durable.
		trials := slices.Clone(res.Trials)
		added := make(chan struct{})
		go func() {
			defer close(added)
			if durable() == nil {
				for _, t := range trials {
					o.pre.Add(t)
				}
			}
		}()
		finishErr = ev.finish(ctx, res, durable)
		finished := time.Now()
		<-added
		// The flush ran beside the finish: what it took until the finish
		// ended was written meanwhile, what it took after was waited for.
		flush, waited := rec.spent-spent, time.Since(finished)
		rec.spent, rec.overlapped = spent+min(flush, waited), rec.overlapped+flush-min(flush, waited)
	}
	flushErr := durable()
	res.Recording, res.RecordingOverlapped = rec.spent, rec.overlapped
	for _, e := range []error{err, flushErr} {
		// A trial whose record failed in the background was counted
		// before it was durable: it is not in the run.
		var rf *recordFailure
		if errors.As(e, &rf) {
			res.Trials = dropTrial(res.Trials, rf.index)
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
func runOne(ctx context.Context, o Options, src source, ev evaluator, rec *recorder, reuse *reuser, tl *tally, res *Result, t *trial) error {
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
		if err = rec.wait(); err == nil {
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
	rec.then(func() {
		if !out.batched {
			// Its statistics start at once, beside the next trial.
			o.pre.Add(record)
		}
		o.Progress.TrialDone(t.index+1, t.total, record, eta)
	})
	return budgetErr
}

// recorder makes trial outcomes durable: a live trial's record and
// per-query results in the background, while the loop goes on to the next
// trial (applying its config and restarting the backend take far longer
// than the fsyncs); replayed trials, a millisecond each, through one batch
// per collection (see runs.TrialBatch), flushed when the evaluator says the
// collection's trials are done or before anything else is recorded.
//
// At most one record is in flight. wait is the barrier: the loop waits for
// it before it commits the next trial, and flush before the loop returns,
// so a run never ends, and no trial's results are read back (reuse), with
// a record still unwritten; a trial is reported finished (then) only once
// its record is durable, so a crash or kill never loses a trial the
// progress said was done.
type recorder struct {
	run   *runs.Run
	batch *runs.TrialBatch
	log   func(durable time.Duration) // says the batch is durable
	// spent is the time the loop spent making records durable (a batch's
	// flush, waiting at the barrier); overlapped, the time background
	// records took while the loop went on.
	spent, overlapped time.Duration
	inFlight          *pendingRecord
	// reports are the reports (then) of the batch's trials, run once
	// the batch is durable.
	reports []func()
	// stored wait for the collections the batch's trials refer to: the
	// batch is flushed once they are durable.
	stored []func() error
}

// pendingRecord is a live trial's record being made durable.
type pendingRecord struct {
	index int
	began time.Time     // when the write started
	done  chan struct{} // closed once written (or failed) and reported

	mu      sync.Mutex
	written bool
	err     error
	took    time.Duration
	report  func() // run once durable (see recorder.then)
}

// recordFailure is a trial record that could not be made durable.
type recordFailure struct {
	index int
	err   error
}

func (e *recordFailure) Error() string { return e.err.Error() }
func (e *recordFailure) Unwrap() error { return e.err }

func (r *recorder) record(out *trialOutcome) error {
	if !out.batched {
		if err := r.flush(); err != nil { // waits for the record in flight too
			return err
		}
		p := &pendingRecord{index: out.Index, done: make(chan struct{}), began: time.Now()}
		r.inFlight = p
		go p.write(r.run, out.TrialRecord, out.results)
		return nil
	}
	// A batched outcome joins the batch, flushed once the evaluator says
	// its collection's trials are done (out.last): one file and one
	// fsync for them all. A live record in flight is durable first.
	if err := r.wait(); err != nil {
		return err
	}
	if r.batch == nil {
		r.batch = r.run.NewTrialBatch()
	}
	if out.stored != nil {
		r.stored = append(r.stored, out.stored)
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
		r.flushBehind()
	}
	return nil
}

// flushBehind makes the batch durable in the background, as the record
// in flight (wait is its barrier): the loop goes on meanwhile, to the
// next trial or to verification. The batch's trials are reported
// finished once it is durable.
func (r *recorder) flushBehind() {
	b, stored, reports, log := r.detach()
	p := &pendingRecord{index: -1, done: make(chan struct{}), began: time.Now()}
	r.inFlight = p
	go p.finish(func() error { return flushBatch(b, stored, log) }, reports)
}

// detach takes the batch, the waits for its collections, its trials'
// reports and its log from r, which holds no batch after.
func (r *recorder) detach() (*runs.TrialBatch, []func() error, []func(), func(time.Duration)) {
	b, stored, reports, log := r.batch, r.stored, r.reports, r.log
	r.batch, r.stored, r.reports, r.log = nil, nil, nil, nil
	return b, stored, reports, log
}

// flushBatch makes b durable once the collections its trials refer to
// are (stored; b is aborted when one is not) and tells log, when set, how
// long that took.
func flushBatch(b *runs.TrialBatch, stored []func() error, log func(time.Duration)) error {
	began := time.Now()
	for _, s := range stored {
		if err := s(); err != nil {
			b.Abort()
			return err
		}
	}
	if err := b.Flush(); err != nil {
		return err
	}
	if log != nil {
		log(time.Since(began))
	}
	return nil
}

// write records trial t durably, then runs the report attached by then.
func (p *pendingRecord) write(run *runs.Run, t runs.TrialRecord, results []runs.QueryResult) {
	p.finish(func() error {
		if err := run.RecordTrial(t, results); err != nil {
			return &recordFailure{index: t.Index, err: fmt.Errorf("record trial %q: %w", t.Name, err)}
		}
		return nil
	}, nil)
}

// finish runs write, the record's writing, and once it has succeeded the
// reports given and the one attached by then.
func (p *pendingRecord) finish(write func() error, reports []func()) {
	err := write()
	p.mu.Lock()
	p.written, p.err, p.took = true, err, time.Since(p.began)
	report := p.report
	p.mu.Unlock()
	if err == nil {
		for _, rep := range reports {
			rep()
		}
		if report != nil {
			report()
		}
	}
	close(p.done)
}

// then runs report once the trial last recorded is durable: at once when
// it is (or when it was recorded in a batch), else when its background
// write ends; never when that write failed (wait returns the error).
func (r *recorder) then(report func()) {
	if r.batch != nil {
		// Recorded in the batch, not flushed yet: reported by flush once
		// it is durable.
		r.reports = append(r.reports, report)
		return
	}
	p := r.inFlight
	if p == nil {
		report()
		return
	}
	p.mu.Lock()
	if !p.written {
		p.report = report
		p.mu.Unlock()
		return
	}
	err := p.err
	p.mu.Unlock()
	if err == nil {
		report()
	}
}

// wait waits for the record in flight, if any, to be durable and
// reported, and returns its error.
func (r *recorder) wait() error {
	p := r.inFlight
	if p == nil {
		return nil
	}
	began := time.Now()
	<-p.done
	r.inFlight = nil
	r.spent += time.Since(began)
	// The part of the write done before the loop came to wait for it.
	r.overlapped += min(p.took, max(0, began.Sub(p.began)))
	return p.err
}

// flush makes the record in flight and the batched records durable.
func (r *recorder) flush() error {
	if err := r.wait(); err != nil {
		return err
	}
	if r.batch == nil {
		return nil
	}
	b, stored, reports, log := r.detach()
	began := time.Now()
	err := flushBatch(b, stored, log)
	r.spent += time.Since(began)
	if err != nil {
		return err
	}
	for _, report := range reports {
		report()
	}
	return nil
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
