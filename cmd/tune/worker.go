package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/experiments"
	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner"
	"github.com/fusiontune/fusiontune/tuner/studystore"
)

func init() {
	register(command{name: "worker", summary: "join a study shared through a database (--storage URL --study NAME)", run: runWorker})
}

const workerUsage = `--experiments FILE --storage URL --study NAME [--parallel N] [--worker NAME] [--config tune.yaml] [--runs-dir DIR]

Joins the sampler study NAME kept in the database at URL (sqlite:///PATH,
postgres://USER@HOST/DB, mysql://USER:PASS@HOST/DB), creating it if it is
new. Every worker runs its own backend (its own tune serve child, port,
config and cache directory) and records its own run; trials are claimed
through the database so none runs twice, and a worker that dies has its
running trial failed (queued trials re-queued) after --heartbeat-timeout.
'tune leaderboard --storage URL --study NAME' prints the combined board.`

func runWorker(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return sweep(ctx, "worker", args, stdout, stderr)
}

// sharedFlags are the flags of a sweep on a shared study.
type sharedFlags struct {
	storage, study, worker string
	parallel               int
	beat, timeout          time.Duration
}

func addSharedFlags(fs *flag.FlagSet) *sharedFlags {
	f := &sharedFlags{}
	fs.StringVar(&f.storage, "storage", "", "keep the sampler study in this database (sqlite:///PATH, postgres://..., mysql://...) shared with other workers")
	fs.StringVar(&f.study, "study", "", "name of the study in --storage (default "+tuner.DefaultStudyName+")")
	fs.StringVar(&f.worker, "worker", "", "this worker's name among the study's workers (default HOST-PID)")
	fs.IntVar(&f.parallel, "parallel", 1, "backend replicas run side by side in this process, each on its own trials")
	fs.DurationVar(&f.beat, "heartbeat", studystore.DefaultHeartbeatInterval, "how often a running trial's heartbeat is renewed")
	fs.DurationVar(&f.timeout, "heartbeat-timeout", studystore.DefaultHeartbeatTimeout, "a running trial without a heartbeat for this long is failed by the other workers")
	return f
}

// check validates the flags; shared reports whether the sweep runs on a
// shared study (a --storage, a worker, or --parallel above 1).
func (f *sharedFlags) check(cmd string, resume string, applyBest bool) (shared bool, err error) {
	if cmd == "worker" && (f.storage == "" || f.study == "") {
		return false, usageErrorf("worker: --storage URL and --study NAME are required")
	}
	if f.parallel < 1 {
		return false, usageErrorf("--parallel: want at least 1 (got %d)", f.parallel)
	}
	if f.beat <= 0 || f.timeout <= f.beat {
		return false, usageErrorf("--heartbeat-timeout (%s) must be longer than --heartbeat (%s), both > 0", f.timeout, f.beat)
	}
	shared = f.storage != "" || f.parallel > 1
	if !shared {
		if f.study != "" {
			return false, usageErrorf("--study needs --storage")
		}
		return false, nil
	}
	if f.storage != "" {
		if _, err := studystore.ParseURL(f.storage); err != nil {
			return false, inputError(fmt.Errorf("--storage: %w", err))
		}
	}
	if resume != "" {
		return false, usageErrorf("--resume does not apply to a shared study: run the worker again, it joins the study where it stands")
	}
	if applyBest {
		return false, usageErrorf("--apply-best does not apply to a shared study: promote from 'tune leaderboard --storage' with 'tune apply'")
	}
	return true, nil
}

// sharedRun is what the sweep prepared for a run on a shared study.
type sharedRun struct {
	args   []string
	s      *settings
	ef     *experiments.ExperimentFile
	trials []experiments.TrialSpec
	ds     *dataset
	scorer *tuner.MetricsScorer
	eng    backendSetup
	study  *tuner.StudyOptions
}

// runShared runs this worker on the shared study: one run directory, one
// backend per replica, SearchShared, then this worker's leaderboard in its
// run directory and the study's combined leaderboard on stdout.
func runShared(ctx context.Context, f *sharedFlags, in sharedRun, format string, stdout, stderr io.Writer) error {
	if _, embedded := in.eng.(embeddedBackend); f.parallel > 1 && !embedded {
		return usageErrorf("--parallel %d: replicas need the embedded backend (each its own tune serve); with backend.kind %q run one worker per service", f.parallel, in.s.Backend.Kind)
	}
	store, err := openStore(in.s.RunsDir)
	if err != nil {
		return err
	}
	var so tuner.StudyOptions // a file without a space: only its own trials, shared
	if in.study != nil {
		so = *in.study
	}
	so.StudyName = f.study
	if so.StudyName == "" {
		so.StudyName = tuner.DefaultStudyName
	}
	worker := f.worker
	if worker == "" {
		host, _ := os.Hostname()
		worker = fmt.Sprintf("%s-%d", host, os.Getpid())
	}
	// A database named by the user is checked before the run directory
	// exists, so a bad URL leaves nothing behind.
	var db *studystore.Store
	defer func() {
		if db != nil {
			_ = db.Close()
		}
	}()
	if f.storage != "" {
		if db, err = openStudyStore(ctx, f.storage); err != nil {
			return err
		}
	}
	run, err := store.Create(runs.Manifest{
		Experiments: in.ef.Hash, GoldenHash: in.ds.hash, Backend: in.s.Backend.Kind,
		Trials: len(in.trials) + so.Trials, Seed: so.Seed, Tool: "tune", Args: in.args,
	}, time.Now())
	if err != nil {
		return err
	}
	if err := snapshot(run, in.s, in.ef, in.ds); err != nil {
		return err
	}
	if db == nil { // --parallel alone: the study lives in the run directory
		if db, err = openStudyStore(ctx, "sqlite:///"+filepath.Join(run.Dir, "study.db")); err != nil {
			return err
		}
	}
	then := "no sampled trials (no space)"
	if in.study != nil {
		then = so.Describe()
	}
	fmt.Fprintf(stderr, "run %s: worker %s on study %q in %s with %d backend replica(s): %d trials of the file, then %s\n",
		run.ID(), worker, so.StudyName, db.Location.Redacted, f.parallel, len(in.trials), then)

	replicas := make([]tuner.Options, f.parallel)
	backends := make([]backend.Backend, 0, f.parallel)
	defer func() {
		for _, b := range backends {
			_ = b.Close() // on an early return; the normal path closes them below
		}
	}()
	progress := &tuner.TextProgress{W: stderr, Terminal: isTerminal(stderr)}
	for r := range replicas {
		dir := filepath.Join(run.Dir, fmt.Sprintf("backend-%d", r))
		b, describe, err := openReplica(in.eng, dir, stderr)
		if err != nil {
			return err
		}
		backends = append(backends, b)
		replicas[r] = tuner.Options{
			Trials: in.trials, Queries: in.ds.queries, Backend: b, Scorer: in.scorer,
			Eval: evalOptions(in.s.Eval), Run: run, Progress: progress,
			FailureBudget: in.s.Eval.FailureBudget, Describe: describe,
		}
		fmt.Fprintf(stderr, "replica %s/%d: sampler seed %d, backend files in %s\n", worker, r, tuner.ReplicaSeed(so.Seed, fmt.Sprintf("%s/%d", worker, r)), dir)
	}
	started := time.Now()
	res, searchErr := tuner.SearchShared(ctx, replicas, so, tuner.Shared{
		Store: db, Worker: worker, Beat: f.beat, Timeout: f.timeout,
		Primary: in.scorer.Describe(), Metrics: in.scorer.Metrics(),
	})
	var closeErr error
	for _, b := range backends {
		closeErr = errors.Join(closeErr, b.Close())
	}
	backends = nil
	searchErr = finishRun(ctx, run, res, searchErr, fmt.Sprintf("run the worker again to rejoin study %q", so.StudyName))
	own, err := run.Trials()
	if err != nil {
		return err
	}
	if err := run.WriteLeaderboard(runs.NewLeaderboard(in.scorer.Describe(), in.scorer.Metrics(), own)); err != nil {
		return err
	}
	lb, err := tuner.SharedLeaderboard(context.WithoutCancel(ctx), db, so.StudyName)
	if err != nil {
		return errors.Join(searchErr, err)
	}
	fmt.Fprintf(stderr, "worker %s ran %d trials in %s; study %q holds %d finished trials; run directory %s\n",
		worker, len(own), time.Since(started).Round(time.Millisecond), so.StudyName, len(lb.Trials), run.Dir)
	if err := lb.Render(stdout, format); err != nil {
		return err
	}
	if searchErr != nil {
		return failedError(searchErr)
	}
	if closeErr != nil {
		return failedError(fmt.Errorf("stop backend: %w", closeErr))
	}
	if _, ok := lb.Best(); !ok {
		return failedError(errors.New("no trial succeeded"))
	}
	return nil
}

// openReplica opens one backend replica with its files in dir: for the
// embedded engine its own tune serve (own port, config and index cache);
// for the other kinds, what the settings name.
func openReplica(eng backendSetup, dir string, stderr io.Writer) (backend.Backend, func(experiments.Params) string, error) {
	if e, ok := eng.(embeddedBackend); ok {
		own := e.withCacheDir(filepath.Join(dir, "cache"))
		b, err := own.backendIn(dir, stderr)
		return b, own.describe, err
	}
	b, err := eng.open(dir, stderr)
	return b, eng.describe, err
}

// openStudyStore opens the study database: a bad URL is an input error
// (exit 2), an unreachable database a failure (exit 1).
func openStudyStore(ctx context.Context, url string) (*studystore.Store, error) {
	db, err := studystore.Open(ctx, url)
	if errors.Is(err, studystore.ErrBadURL) {
		return nil, inputError(fmt.Errorf("--storage: %w", err))
	}
	if err != nil {
		return nil, failedError(err)
	}
	return db, nil
}

// runSharedLeaderboard prints the combined leaderboard of a shared study.
func runSharedLeaderboard(ctx context.Context, url, study, format string, stdout io.Writer) error {
	db, err := openStudyStore(ctx, url)
	if err != nil {
		return err
	}
	defer db.Close()
	if study == "" {
		study = tuner.DefaultStudyName
	}
	lb, err := tuner.SharedLeaderboard(ctx, db, study)
	if errors.Is(err, studystore.ErrNoStudy) {
		return inputError(err)
	}
	if err != nil {
		return failedError(err)
	}
	return lb.Render(stdout, format)
}
