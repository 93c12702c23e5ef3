package runs

import (
	"fmt"
	"sync"
	"time"
)

// Recorder makes a run's trial records durable: a live trial's record and
// per-query results in the background (Record: write-behind, while the
// tuner goes on to the next trial — applying its config and restarting
// the backend take far longer than the fsyncs); replayed trials, a
// millisecond each, through one batch per collection (Batch, see
// TrialBatch), flushed once the collection's last trial is added or before
// anything else is recorded. Record followed by Wait records
// synchronously.
//
// At most one record is in flight. Wait is the barrier: the tuner waits
// for it before it commits the next trial, and Flush before the loop
// returns, so a run never ends, and no trial's results are read back, with
// a record still unwritten; a trial is reported finished (Then) only once
// its record is durable, so a crash or kill never loses a trial the
// progress said was done. A Recorder is used by one goroutine.
type Recorder struct {
	run   *Run
	batch *TrialBatch
	log   func(durable time.Duration) // says the batch is durable
	// spent is the time the caller spent making records durable (a
	// batch's flush, waiting at the barrier); overlapped, the time
	// background records took while the caller went on.
	spent, overlapped time.Duration
	inFlight          *pendingRecord
	// reports are the reports (Then) of the batch's trials, run once
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
	report  func() // run once durable (see Recorder.Then)
}

// RecordFailure is a trial record that could not be made durable: the
// trial it names is not in the run.
type RecordFailure struct {
	Index int // the trial's index
	err   error
}

// Error returns the write's error message.
func (e *RecordFailure) Error() string { return e.err.Error() }

// Unwrap returns the write's error.
func (e *RecordFailure) Unwrap() error { return e.err }

// NewRecorder returns a Recorder of run's trials.
func NewRecorder(run *Run) *Recorder { return &Recorder{run: run} }

// Record makes trial t and its per-query results durable in the
// background, once the records before are (Wait is the barrier).
func (r *Recorder) Record(t TrialRecord, results []QueryResult) error {
	if err := r.Flush(); err != nil { // waits for the record in flight too
		return err
	}
	p := &pendingRecord{index: t.Index, done: make(chan struct{}), began: time.Now()}
	r.inFlight = p
	go p.write(r.run, t, results)
	return nil
}

// BatchEntry says how a replayed trial joins the recorder's batch.
type BatchEntry struct {
	// Stored waits for the collection the record refers to to be durable
	// (nil: it is, or there is none): the batch is not flushed before.
	Stored func() error
	// Last says the trial is the last of its collection's: the batch is
	// then made durable in the background (Wait is the barrier).
	Last bool
	// Durable, when set, is told how long the batch took to be durable.
	Durable func(time.Duration)
}

// Batch adds trial t, a replayed trial whose per-query results are
// derived from a stored collection (results nil) or given, to the batch:
// one file and one fsync for a collection's trials. A live record in
// flight is durable first.
func (r *Recorder) Batch(t TrialRecord, results []QueryResult, e BatchEntry) error {
	if err := r.Wait(); err != nil {
		return err
	}
	if r.batch == nil {
		r.batch = r.run.NewTrialBatch()
	}
	if e.Stored != nil {
		r.stored = append(r.stored, e.Stored)
	}
	enc, err := EncodeTrial(t, results)
	if err == nil {
		err = r.batch.Add(enc)
	}
	if err != nil {
		return fmt.Errorf("record trial %q: %w", t.Name, err)
	}
	r.log = e.Durable
	if e.Last {
		r.flushBehind()
	}
	return nil
}

// flushBehind makes the batch durable in the background, as the record
// in flight (wait is its barrier): the loop goes on meanwhile, to the
// next trial or to verification. The batch's trials are reported
// finished once it is durable.
func (r *Recorder) flushBehind() {
	b, stored, reports, log := r.detach()
	p := &pendingRecord{index: -1, done: make(chan struct{}), began: time.Now()}
	r.inFlight = p
	go p.finish(func() error { return flushBatch(b, stored, log) }, reports)
}

// detach takes the batch, the waits for its collections, its trials'
// reports and its log from r, which holds no batch after.
func (r *Recorder) detach() (*TrialBatch, []func() error, []func(), func(time.Duration)) {
	b, stored, reports, log := r.batch, r.stored, r.reports, r.log
	r.batch, r.stored, r.reports, r.log = nil, nil, nil, nil
	return b, stored, reports, log
}

// flushBatch makes b durable once the collections its trials refer to
// are (stored; b is aborted when one is not) and tells log, when set, how
// long that took.
func flushBatch(b *TrialBatch, stored []func() error, log func(time.Duration)) error {
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
func (p *pendingRecord) write(run *Run, t TrialRecord, results []QueryResult) {
	p.finish(func() error {
		if err := run.RecordTrial(t, results); err != nil {
			return &RecordFailure{Index: t.Index, err: fmt.Errorf("record trial %q: %w", t.Name, err)}
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

// Then runs report once the trial last recorded is durable: at once when
// it is (or when it was recorded in a batch), else when its background
// write ends; never when that write failed (wait returns the error).
func (r *Recorder) Then(report func()) {
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

// Wait waits for the record in flight, if any, to be durable and
// reported, and returns its error.
func (r *Recorder) Wait() error {
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

// Flush makes the record in flight and the batched records durable.
func (r *Recorder) Flush() error {
	if err := r.Wait(); err != nil {
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

// FlushBeside makes the records durable in the background while work runs
// beside the flush: work gets durable, which waits for the flush and
// returns its error (work must record nothing, nor read a trial back,
// before it returns nil); then, when set, runs once the flush succeeded.
// It returns work's error and the flush's. The flush's time counts as
// written meanwhile up to the end of work, and as waited for after it.
func (r *Recorder) FlushBeside(work func(durable func() error) error, then func()) (workErr, flushErr error) {
	durable := sync.OnceValue(r.Flush)
	spent := r.spent
	done := make(chan struct{})
	go func() {
		defer close(done)
		if durable() == nil && then != nil {
			then()
		}
	}()
	workErr = work(durable)
	finished := time.Now()
	<-done
	flush, waited := r.spent-spent, time.Since(finished)
	r.spent, r.overlapped = spent+min(flush, waited), r.overlapped+flush-min(flush, waited)
	return workErr, durable()
}

// Spent returns the time the caller spent making records durable (a
// batch's flush, waiting at the barrier) and overlapped, the time
// background records took while the caller went on.
func (r *Recorder) Spent() (spent, overlapped time.Duration) { return r.spent, r.overlapped }
