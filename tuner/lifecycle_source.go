package tuner

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner/sampler"
	"github.com/fusiontune/fusiontune/tuner/studystore"
)

// runSource is where a run's trials come from, and the little that changes
// in its lifecycle with that: a sweep or a sampler study on the run's own
// backend (planRun), or this worker's share of a study shared through a
// database, on its backend replicas (sharedRun). Run is the one lifecycle
// around either: open the run, its backends, the pre-flight, the trials,
// the held-out estimate, latency, the analysis.
type runSource interface {
	// open creates the run (or reopens the run to resume); snapshotted
	// waits until its inputs are written and returns why they could not
	// be (every time asked).
	open(ctx context.Context, c Config) (run *runs.Run, snapshotted func() error, err error)
	// announce logs the run's plan.
	announce(c Config, run *runs.Run)
	// backends are the run's backends: the directory of each in run and
	// its factory (a replica's, for a shared study).
	backends(c Config, run *runs.Run) (dirs []string, factories []backend.Factory)
	// trials runs the trials, each backend with its options (opts), and
	// brings in what else the run holds (a shared study's other trials).
	trials(ctx context.Context, c Config, run *runs.Run, opts []Options) (*Result, error)
	// hint says how to continue the run after an interruption.
	hint(c Config, run *runs.Run) string
	// summary is the run's last log line before its timings.
	summary(out *Outcome, res *Result, elapsed time.Duration) string
	// close releases what open opened beside the run (a study database).
	close()
}

// source returns where c's trials come from.
func (c Config) source() (runSource, error) {
	if c.Shared == nil {
		return planRun{}, nil
	}
	sh, err := c.sharedConfig()
	if err != nil {
		return nil, err
	}
	return &sharedRun{sh: sh, so: sharedStudy(c, sh)}, nil
}

// planRun is a run of the experiment file's trials, then the sampler
// study's when it has a space, on one backend; it can be resumed.
type planRun struct{}

func (planRun) open(_ context.Context, c Config) (*runs.Run, func() error, error) {
	return openRun(c)
}

func (planRun) announce(c Config, run *runs.Run) { c.announce(run) }

func (planRun) backends(c Config, run *runs.Run) ([]string, []backend.Factory) {
	return []string{filepath.Join(run.Dir, "backend")}, []backend.Factory{c.Backend}
}

func (planRun) trials(ctx context.Context, c Config, run *runs.Run, opts []Options) (*Result, error) {
	o := opts[0]
	o.Replay = c.Replay
	if c.Study != nil {
		so := *c.Study
		so.Objective = c.objective(run)
		return Search(ctx, o, so)
	}
	return Sweep(ctx, o)
}

func (planRun) hint(c Config, run *runs.Run) string {
	if c.ResumeHint == nil {
		return ""
	}
	return c.ResumeHint(run.ID())
}

func (planRun) summary(out *Outcome, res *Result, elapsed time.Duration) string {
	return fmt.Sprintf("%d trials (%d resumed), %d backend restarts, %s; run directory %s",
		len(out.Trials), res.Skipped, res.Restarts, elapsed.Round(time.Millisecond), out.Run.Dir)
}

func (planRun) close() {}

// sharedRun is this worker's share of a study kept in a shared database
// (SearchShared), with one backend replica per sh.Parallel; the trials
// other workers finished are brought into the run, so that its
// leaderboard, significance, report and gates cover the whole study
// exactly as a sweep's do.
type sharedRun struct {
	sh SharedConfig
	so sampler.Options
	db *studystore.Store
	// ran and imported count the trials this worker ran and those it
	// brought in from the study.
	ran, imported int
}

func (s *sharedRun) open(ctx context.Context, c Config) (*runs.Run, func() error, error) {
	run, db, err := openSharedRun(ctx, c, s.sh, s.so)
	s.db = db
	if err != nil {
		return nil, nil, err
	}
	s.so.Objective = c.objective(run)
	return run, func() error { return nil }, nil
}

func (s *sharedRun) announce(c Config, run *runs.Run) {
	then := "no sampled trials (no space)"
	if c.Study != nil {
		then = s.so.Describe()
	}
	fmt.Fprintf(c.Log, "run %s: worker %s on study %q in %s with %d backend replica(s): %d trials of the file, then %s\n",
		run.ID(), s.sh.Worker, s.so.StudyName, s.db.Location.Redacted, s.sh.Parallel, len(c.Trials), then)
	c.announceScore()
}

// backends are one replica per sh.Parallel, each with its files (caches
// included, for the embedded engine) in run/backend-R.
func (s *sharedRun) backends(c Config, run *runs.Run) ([]string, []backend.Factory) {
	var dirs []string
	var fs []backend.Factory
	for r := range s.sh.Parallel {
		dir := filepath.Join(run.Dir, fmt.Sprintf("backend-%d", r))
		f := c.Backend
		if rep, ok := f.(backend.Replicator); ok {
			f = rep.Replica(dir)
		}
		fmt.Fprintf(c.Log, "replica %s/%d: sampler seed %d, backend files in %s\n", s.sh.Worker, r, ReplicaSeed(s.so.Seed, fmt.Sprintf("%s/%d", s.sh.Worker, r)), dir)
		dirs, fs = append(dirs, dir), append(fs, f)
	}
	return dirs, fs
}

// trials runs this worker's replicas on the study, then imports the
// trials other workers finished.
func (s *sharedRun) trials(ctx context.Context, c Config, run *runs.Run, opts []Options) (*Result, error) {
	res, err := SearchShared(ctx, opts, s.so, Shared{
		Store: s.db, Worker: s.sh.Worker, Beat: s.sh.Beat, Timeout: s.sh.Timeout,
		Primary: c.Scorer.Describe(), Metrics: c.Scorer.Metrics(),
	})
	if res != nil {
		s.ran = len(res.Trials)
	}
	if err == nil {
		s.imported, err = importStudy(context.WithoutCancel(ctx), s.db, s.so.StudyName, run)
	}
	return res, err
}

func (s *sharedRun) hint(Config, *runs.Run) string {
	return fmt.Sprintf("run the worker again to rejoin study %q", s.so.StudyName)
}

func (s *sharedRun) summary(out *Outcome, _ *Result, elapsed time.Duration) string {
	return fmt.Sprintf("worker %s ran %d trials in %s; study %q holds %d finished trials (%d by other workers); run directory %s",
		s.sh.Worker, s.ran, elapsed.Round(time.Millisecond), s.so.StudyName, len(out.Trials), s.imported, out.Run.Dir)
}

func (s *sharedRun) close() {
	if s.db != nil {
		s.db.Close()
	}
}
