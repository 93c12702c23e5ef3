package tuner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/internal/inputerr"
	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner/pass"
	"github.com/fusiontune/fusiontune/tuner/sampler"
	"github.com/fusiontune/fusiontune/tuner/studystore"
)

// runShared is Run for a study shared through a database: one run
// directory, one backend per replica, SearchShared; then the study's other
// finished trials are brought into the run (records and per-query results,
// from the database), so that its leaderboard, significance, report and
// gates cover the whole study exactly as a sweep's do.
func runShared(ctx context.Context, c Config) (*Outcome, error) {
	sh, err := c.sharedConfig()
	if err != nil {
		return nil, err
	}
	so := sharedStudy(c, sh)
	run, db, err := openSharedRun(ctx, c, sh, so)
	if db != nil {
		defer db.Close()
	}
	if err != nil {
		return nil, err
	}
	so.Objective = c.objective(run)
	then := "no sampled trials (no space)"
	if c.Study != nil {
		then = so.Describe()
	}
	fmt.Fprintf(c.Log, "run %s: worker %s on study %q in %s with %d backend replica(s): %d trials of the file, then %s\n",
		run.ID(), sh.Worker, so.StudyName, db.Location.Redacted, sh.Parallel, len(c.Trials), then)
	reps, err := c.openReplicas(run, sh, so)
	defer reps.close() // on an early return; the normal path closes them below
	if err != nil {
		return nil, err
	}
	if err := c.preflightReplicas(ctx, run, reps); err != nil {
		return nil, err
	}
	started := time.Now()
	w := c.workShared(ctx, run, reps, so, sh, db)
	bs := reps.timed
	closeErr := reps.close()
	elapsed := time.Since(started)
	hint := fmt.Sprintf("run the worker again to rejoin study %q", so.StudyName)
	runErr := finishRun(ctx, run, w.res, w.err, hint)
	if w.res == nil {
		return nil, runErr
	}
	out, err := c.finish(ctx, run, w.held, bs, w.res, elapsed, hint)
	if err != nil {
		return out, errors.Join(runErr, err)
	}
	fmt.Fprintf(c.Log, "worker %s ran %d trials in %s; study %q holds %d finished trials (%d by other workers); run directory %s\n",
		sh.Worker, len(w.res.Trials), elapsed.Round(time.Millisecond), so.StudyName, len(out.Trials), w.imported, run.Dir)
	c.logTimings(out.Timings)
	return out, c.verdict(out, runErr, closeErr)
}

// sharedConfig is c.Shared with at least one replica, checked: more than
// one replica needs a backend that can open replicas of itself.
func (c Config) sharedConfig() (SharedConfig, error) {
	sh := *c.Shared
	if sh.Parallel < 1 {
		sh.Parallel = 1
	}
	if _, ok := c.Backend.(backend.Replicator); sh.Parallel > 1 && !ok {
		return sh, inputerr.Wrap(fmt.Errorf("--parallel %d: replicas need the embedded backend (each its own tune serve); with backend.kind %q run one worker per service", sh.Parallel, c.Manifest.Backend))
	}
	return sh, nil
}

// preflightReplicas starts the first replica once with the file's first
// trial: a setup that cannot serve fails here (recorded in run as a
// failed pre-flight, replicas closed), before this worker claims any
// trial.
func (c Config) preflightReplicas(ctx context.Context, run *runs.Run, reps *replicas) error {
	spec, ok := preflightSpec(c.Trials)
	if !ok {
		return nil
	}
	if _, err := preflight(ctx, reps.timed[0], spec); err != nil {
		_ = reps.close()
		return c.failPreflight(ctx, run, err, filepath.Join(run.Dir, "backend-0"))
	}
	return nil
}

// sharedWork is what a worker's pass over a shared study left: the trials
// it ran, how many of the study's other trials it imported, the held-out
// scores, and the first error (which stops the steps after it).
type sharedWork struct {
	res      *Result
	imported int
	held     *runs.HeldOut
	err      error
}

// workShared runs this worker's replicas on the study (SearchShared),
// then imports the trials other workers finished, scores the held-out
// set and measures latency on the first replica, each step only when the
// ones before it succeeded.
func (c Config) workShared(ctx context.Context, run *runs.Run, reps *replicas, so sampler.Options, sh SharedConfig, db *studystore.Store) sharedWork {
	var w sharedWork
	w.res, w.err = SearchShared(ctx, reps.options, so, Shared{
		Store: db, Worker: sh.Worker, Beat: sh.Beat, Timeout: sh.Timeout,
		Primary: c.Scorer.Describe(), Metrics: c.Scorer.Metrics(),
	})
	if w.err == nil {
		w.imported, w.err = importStudy(context.WithoutCancel(ctx), db, so.StudyName, run)
	}
	if w.err == nil {
		w.held, w.err = c.heldOut(ctx, run, reps.timed[0])
	}
	if w.err == nil {
		w.err = c.measureLatency(ctx, run, reps.timed[0])
	}
	return w
}

// sharedStudy is the study the workers share: the file's space (none: only
// its own trials, shared) under the study's name.
func sharedStudy(c Config, sh SharedConfig) sampler.Options {
	var so sampler.Options
	if c.Study != nil {
		so = *c.Study
	}
	so.StudyName = sh.Study
	if so.StudyName == "" {
		so.StudyName = sampler.DefaultStudyName
	}
	return so
}

// openSharedRun opens the study database and creates this worker's run.
// A database named by the user is opened before the run directory exists,
// so a bad URL leaves nothing behind; without one (--parallel alone) the
// study lives in the run directory. The database is returned for closing
// even with an error.
func openSharedRun(ctx context.Context, c Config, sh SharedConfig, so sampler.Options) (*runs.Run, *studystore.Store, error) {
	var db *studystore.Store
	var err error
	if sh.URL != "" {
		if db, err = openStudyStore(ctx, sh.URL); err != nil {
			return nil, nil, err
		}
	}
	m := c.Manifest
	m.Trials, m.Seed = len(c.Trials)+so.Trials, so.Seed
	run, err := c.Store.Create(m, time.Now())
	if err != nil {
		return nil, db, err
	}
	if c.Snapshot != nil {
		if err := c.Snapshot(run); err != nil {
			return nil, db, err
		}
	}
	if db == nil {
		if db, err = openStudyStore(ctx, "sqlite:///"+filepath.Join(run.Dir, "study.db")); err != nil {
			return nil, nil, err
		}
	}
	return run, db, nil
}

// replicas are this worker's backends, each with its trial loop's options.
type replicas struct {
	options []Options
	timed   []*pass.TimedBackend
}

// close stops every replica's backend (once).
func (r *replicas) close() error {
	var err error
	for _, b := range r.timed {
		err = errors.Join(err, b.Close())
	}
	r.timed = nil
	return err
}

// openReplicas opens sh.Parallel backends, each with its files (caches
// included, for the embedded engine) in run/backend-R.
func (c Config) openReplicas(run *runs.Run, sh SharedConfig, so sampler.Options) (*replicas, error) {
	reps := &replicas{}
	fps := newFingerprints(c.Backend) // one memo for every replica
	for r := range sh.Parallel {
		dir := filepath.Join(run.Dir, fmt.Sprintf("backend-%d", r))
		f := c.Backend
		if rep, ok := f.(backend.Replicator); ok {
			f = rep.Replica(dir)
		}
		b, err := f.Open(dir, c.Log)
		if err != nil {
			return reps, err
		}
		tb := pass.NewTimedBackend(b)
		reps.timed = append(reps.timed, tb)
		reps.options = append(reps.options, c.options(run, tb, f.Describe, fps))
		fmt.Fprintf(c.Log, "replica %s/%d: sampler seed %d, backend files in %s\n", sh.Worker, r, ReplicaSeed(so.Seed, fmt.Sprintf("%s/%d", sh.Worker, r)), dir)
	}
	return reps, nil
}

// sharedRecord is a trial as a shared study's database keeps it: the
// record and its per-query results, so that every worker can score the
// whole study.
type sharedRecord struct {
	runs.TrialRecord
	QueryResults []runs.QueryResult `json:"query_results,omitempty"`
}

// importStudy records in run every finished trial of the study that run
// does not hold yet (other workers' trials), with its per-query results.
// A record saved without per-query results (an older worker) is left out:
// it could not be compared. It returns how many it recorded.
func importStudy(ctx context.Context, db *studystore.Store, study string, run *runs.Run) (int, error) {
	id, err := db.StudyID(ctx, study)
	if err != nil {
		return 0, err
	}
	recs, err := db.Records(ctx, id)
	if err != nil {
		return 0, err
	}
	have, err := run.Trials()
	if err != nil {
		return 0, err
	}
	held := make(map[int]bool, len(have))
	for _, t := range have {
		held[t.Index] = true
	}
	n := 0
	for _, r := range recs {
		var sr sharedRecord
		if err := json.Unmarshal(r.JSON, &sr); err != nil {
			return n, fmt.Errorf("study %q: record of trial %d: %w", study, r.Number, err)
		}
		if held[sr.Index] || sr.QueryResults == nil {
			continue
		}
		if err := run.RecordTrial(sr.TrialRecord, sr.QueryResults); err != nil {
			return n, fmt.Errorf("study %q: record trial %q: %w", study, sr.Name, err)
		}
		n++
	}
	return n, nil
}
