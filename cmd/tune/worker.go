package main

import (
	"context"
	"errors"
	"fmt"
	"github.com/fusiontune/fusiontune/internal/cli"
	"os"
	"time"

	"github.com/fusiontune/fusiontune/tuner"
	"github.com/fusiontune/fusiontune/tuner/sampler"
	"github.com/fusiontune/fusiontune/tuner/studystore"
)

const workerUsage = `--experiments FILE --storage URL --study NAME [--parallel N] [--worker NAME] [--config tune.yaml] [--runs-dir DIR]

Joins the sampler study NAME kept in the database at URL (sqlite:///PATH,
postgres://USER@HOST/DB, mysql://USER:PASS@HOST/DB), creating it if it is
new. Every worker runs its own backend (its own tune serve child, port,
config and cache directory) and records its own run; trials are claimed
through the database so none runs twice, and a worker that dies has its
running trial failed (queued trials re-queued) after --heartbeat-timeout.
'tune leaderboard --storage URL --study NAME' prints the combined board.`

func runWorker(ctx context.Context, a *app, args []string) error {
	return a.sweep(ctx, "worker", args)
}

// sharedFlags are the flags of a sweep on a shared study.
type sharedFlags struct {
	storage, study, worker string
	parallel               int
	beat, timeout          time.Duration
}

// sharedFlagSpecs are the flags of a sweep on a shared study.
var sharedFlagSpecs = []cli.Flag{
	cli.String("storage", "", "keep the sampler study in this database (sqlite:///PATH, postgres://..., mysql://...) shared with other workers"),
	cli.String("study", "", "name of the study in --storage (default "+sampler.DefaultStudyName+")"),
	cli.String("worker", "", "this worker's name among the study's workers (default HOST-PID)"),
	cli.Int("parallel", 1, "backend replicas run side by side in this process, each on its own trials").Min(1),
	cli.Duration("heartbeat", studystore.DefaultHeartbeatInterval, "how often a running trial's heartbeat is renewed"),
	cli.Duration("heartbeat-timeout", studystore.DefaultHeartbeatTimeout, "a running trial without a heartbeat for this long is failed by the other workers"),
}

func sharedFlagsOf(fs *cli.Parsed) *sharedFlags {
	return &sharedFlags{storage: fs.Str("storage"), study: fs.Str("study"), worker: fs.Str("worker"), parallel: fs.Int("parallel"),
		beat: fs.Duration("heartbeat"), timeout: fs.Duration("heartbeat-timeout")}
}

// check validates the flags; shared reports whether the sweep runs on a
// shared study (a --storage, a worker, or --parallel above 1).
func (f *sharedFlags) check(cmd string, resume string, applyBest bool) (shared bool, err error) {
	if cmd == "worker" && (f.storage == "" || f.study == "") {
		return false, usageErrorf("worker: --storage URL and --study NAME are required")
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

// config is the shared study the flags name, for tuner.Run.
func (f *sharedFlags) config() *tuner.SharedConfig {
	worker := f.worker
	if worker == "" {
		host, _ := os.Hostname()
		worker = fmt.Sprintf("%s-%d", host, os.Getpid())
	}
	return &tuner.SharedConfig{URL: f.storage, Study: f.study, Worker: worker, Parallel: f.parallel, Beat: f.beat, Timeout: f.timeout}
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
func (a *app) runSharedLeaderboard(ctx context.Context, url, study, format string) error {
	db, err := openStudyStore(ctx, url)
	if err != nil {
		return err
	}
	defer db.Close()
	if study == "" {
		study = sampler.DefaultStudyName
	}
	lb, err := tuner.SharedLeaderboard(ctx, db, study)
	if errors.Is(err, studystore.ErrNoStudy) {
		return inputError(err)
	}
	if err != nil {
		return failedError(err)
	}
	return lb.Render(a.stdout, format)
}
