package tuner

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/experiments"
	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner/analysis"
	"github.com/fusiontune/fusiontune/tuner/pass"
	"github.com/fusiontune/fusiontune/tuner/scoring"
)

// Options configure a sweep.
type Options struct {
	Trials  []experiments.TrialSpec
	Queries []scoring.Query
	Backend backend.Backend
	Scorer  scoring.Scorer
	Eval    pass.EvalOptions
	Run     *runs.Run
	// Progress receives progress events; nil means none.
	Progress Progress
	// FailureBudget is how many trials may fail before the sweep stops
	// (0: unlimited).
	FailureBudget int
	// MaxConsecutiveFailures stops the sweep once this many trials in a
	// row failed with the same error (see SameError; 0: never), keeping
	// the recorded trials for a resume.
	MaxConsecutiveFailures int
	// Describe renders a trial's exact backend config for the record.
	Describe func(params experiments.Params) string
	// Replay, unless nil or ModeLive, fuses query-time variants offline
	// from collected candidate lists and verifies the best live (replay.go).
	Replay *ReplayOptions
	// Fingerprint, when set, keys what a trial's configuration builds and
	// answers (backend.Fingerprinter): a trial whose key an earlier
	// successful trial had is not run but reuses its results (reuse.go).
	Fingerprint func(params experiments.Params) (string, error)
	// RetryFailed runs a resumed run's failed trials again (their new
	// records replace the failed ones); otherwise they count as done.
	RetryFailed bool

	// Stats, when set, computes the statistics of each recorded trial in
	// the background while the next ones run: the loop tells it of every
	// trial once its record is durable (a resumed run's recorded trials
	// too), a replay offers it the facts made in each trial's fusion, and
	// verification widens it to every core once no live work is left.
	Stats *analysis.Prestats
}

// Result is the outcome of a sweep.
type Result struct {
	Trials      []runs.TrialRecord // every trial of the run, in execution order
	Leaderboard runs.Leaderboard
	Restarts    int
	Skipped     int // trials found already recorded (resume)
	// Recording is the time the trials waited for their records to be
	// durable; RecordingOverlapped, the time records were written in the
	// background while the next trial ran (no part of the wall time's
	// overhead).
	Recording, RecordingOverlapped time.Duration
}

// ErrFailureBudget is returned when more trials failed than allowed.
var ErrFailureBudget = errors.New("failure budget exhausted")

// ErrStoppedEarly is returned when consecutive trials failed with the same
// error (Options.MaxConsecutiveFailures): the remaining trials would most
// likely fail the same way.
var ErrStoppedEarly = errors.New("stopped early")

// Sweep evaluates every trial on the backend in plan order and records each
// one durably before the next starts. Trials already recorded in the run
// (a resumed run) are not redone. With o.Replay in mode replay or auto,
// query-time variants are replayed (see replayEval), grouped so that each
// group's candidate lists are collected once, and the best are verified
// live. Sweep does not close the backend.
func Sweep(ctx context.Context, o Options) (*Result, error) {
	if o.Progress == nil {
		o.Progress = nopProgress{}
	}
	src, err := newPlanSource(o, replaying(o.Replay))
	if err != nil {
		return nil, err
	}
	ev, err := newEvaluator(o, nil, nil, o.Trials, src.pending())
	if err != nil {
		return nil, err
	}
	return loop(ctx, o, src, ev)
}

// trialOutcome is a scored trial: its record and per-query results.
type trialOutcome struct {
	runs.TrialRecord
	results []runs.QueryResult
	// batched marks a replayed trial whose per-query results are derived
	// from a stored collection: it is recorded through a batch. last says
	// it is the last of its collection's precomputed trials (the batch is
	// then made durable); durable is told how long that took.
	batched bool
	last    bool
	durable func(time.Duration)
	// stored waits for the collection the outcome derives from to be
	// durable (nil: it is, or there is none): its record must not be
	// before the collection it refers to.
	stored func() error
}

// runTrial applies, restarts if needed, evaluates and scores one trial. A
// backend failure gives a failed record, not an error; the error is
// returned only alongside the record so that interruption can be told apart.
func runTrial(ctx context.Context, o Options, index int, spec experiments.TrialSpec, searched func()) (trialOutcome, bool, error) {
	rec := trialOutcome{TrialRecord: runs.TrialRecord{
		Index: index, Name: spec.Name, Params: spec.Params, Group: spec.Params.IndexKey(),
		Baseline: spec.Baseline, Mode: "live", Status: runs.StatusOK, Summary: runs.Summary{Scorecard: map[string]float64{}},
	}}
	if o.Describe != nil {
		rec.BackendConfig = o.Describe(spec.Params)
	}
	fail := func(err error) (trialOutcome, bool, error) {
		rec.Status = runs.StatusFailed
		rec.Error = err.Error()
		return rec, false, err
	}
	restarted, err := pass.Start(ctx, o.Backend, spec.Params, false)
	if err != nil {
		out, _, e := fail(err)
		return out, restarted, e
	}
	prefix := fmt.Sprintf("%s/%03d", o.Run.ID(), index)
	ps := pass.Pass{Searcher: o.Backend, Queries: o.Queries, Scorer: o.Scorer, Eval: o.Eval, Prefix: prefix,
		Progress: func(n int) { o.Progress.QueryDone(n, len(o.Queries)) }}
	batch, err := ps.Search(ctx)
	if searched != nil && ctx.Err() == nil {
		searched() // the next trial's backend starts beside what follows
	}
	if errors.Is(err, backend.ErrServiceExited) {
		// The dead service fails the trial at once, with its exit status;
		// the queries it answered before are kept with the record.
		rec.results, rec.Failed = batch.Results, batch.Failed
		out, _, e := fail(err)
		return out, restarted, e
	}
	if err != nil {
		out, _, e := fail(err)
		return out, restarted, e
	}
	rec.results = batch.Results
	s := scoring.Summarize(o.Queries, batch.Results)
	rec.Primary, rec.Scorecard = s.Primary, s.Scorecard
	rec.Categories, rec.Difficulties, rec.Routing = s.Categories, s.Difficulties, s.Routing
	rec.TopLabels = s.TopLabels
	rec.Queries, rec.Failed = s.Scored, batch.Failed
	rec.queryErrorsFail(o.Eval.OnQueryError, len(o.Queries), firstError(batch.Results))
	return rec, restarted, nil
}

func firstError(rs []runs.QueryResult) string {
	for _, r := range rs {
		if r.Error != "" {
			return r.QueryID + ": " + r.Error
		}
	}
	return ""
}

// queryErrorsFail settles a scored trial with failed queries under policy
// p: under zero and skip the trial stays ok and records the policy, unless
// every query failed; otherwise it fails with the first error (first).
func (rec *trialOutcome) queryErrorsFail(p string, queries int, first string) {
	if rec.Failed == 0 {
		return
	}
	if scoring.Tolerated(p) && rec.Failed < queries {
		rec.OnQueryError = p
		return
	}
	rec.Status = runs.StatusFailed
	rec.Error = fmt.Sprintf("%d of %d queries failed (first: %s)", rec.Failed, queries, first)
}
