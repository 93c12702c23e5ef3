package tuner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/backend/kinds"
	"github.com/fusiontune/fusiontune/experiments"
	"github.com/fusiontune/fusiontune/internal/inputerr"
	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner/pass"
	"github.com/fusiontune/fusiontune/tuner/sampler"
	"github.com/fusiontune/fusiontune/tuner/studystore"
)

// SweepRequest is what a sweep's command line asks of the lifecycle, in
// plain values: the settings build the rest of the Config
// (Settings.SweepConfig), Check and the Config methods below apply the
// rules that tie the request's parts together. The user's errors are
// input errors (inputerr.Error).
type SweepRequest struct {
	// Experiments is the experiment file ("" the shipped shortlist).
	Experiments string
	// Resume names an interrupted run to continue; RetryFailed runs its
	// failed trials again.
	Resume      string
	RetryFailed bool
	// ApplyBest promotes the best trial afterwards (the caller's job).
	ApplyBest bool
	// Mode is live, replay or auto (ParseMode); ModeGiven says the user
	// chose it. Verify is how many replayed trials re-run live.
	Mode      string
	ModeGiven bool
	Verify    int
	// Worker is `tune worker`: the request must name a shared study.
	Worker bool
	// Shared is the shared study, when Storage is set or Parallel > 1.
	Shared SharedRequest
	// Args is the command line, recorded in the manifest and the locks.
	Args []string
	// ResumeHint, when set, says how to resume a run (Config.ResumeHint).
	ResumeHint func(id string) string
	// Phases, when set, notes the phases of reading the inputs and of the
	// run (Config.Phases).
	Phases *pass.Phases
}

// SharedRequest is a request's shared study (see SharedConfig).
type SharedRequest struct {
	Storage, Study, Worker string
	Parallel               int
	Beat, Timeout          time.Duration
}

// Check checks the parts of r that need no file and reports whether the
// sweep runs on a shared study (a --storage, a worker, or --parallel
// above 1).
func (r SweepRequest) Check() (shared bool, err error) {
	if shared, err = r.Shared.check(r.Worker, r.Resume, r.ApplyBest); err != nil {
		return false, err
	}
	if r.RetryFailed && r.Resume == "" {
		return false, inputerr.Wrap(errors.New("--retry-failed: only with --resume RUN"))
	}
	return shared, nil
}

// check validates the shared-study flags (see SweepRequest.Check).
func (f SharedRequest) check(worker bool, resume string, applyBest bool) (shared bool, err error) {
	if worker && (f.Storage == "" || f.Study == "") {
		return false, inputerr.Wrap(errors.New("worker: --storage URL and --study NAME are required"))
	}
	if f.Beat <= 0 || f.Timeout <= f.Beat {
		return false, inputerr.Wrap(fmt.Errorf("--heartbeat-timeout (%s) must be longer than --heartbeat (%s), both > 0", f.Timeout, f.Beat))
	}
	shared = f.Storage != "" || f.Parallel > 1
	if !shared {
		if f.Study != "" {
			return false, inputerr.Wrap(errors.New("--study needs --storage"))
		}
		return false, nil
	}
	if f.Storage != "" {
		if _, err := studystore.ParseURL(f.Storage); err != nil {
			return false, inputerr.Wrap(fmt.Errorf("--storage: %w", err))
		}
	}
	if resume != "" {
		return false, inputerr.Wrap(errors.New("--resume does not apply to a shared study: run the worker again, it joins the study where it stands"))
	}
	if applyBest {
		return false, inputerr.Wrap(errors.New("--apply-best does not apply to a shared study: promote from 'tune leaderboard --storage' with 'tune apply'"))
	}
	return true, nil
}

// Config is the shared study r names, its worker named HOST-PID unless
// r names it.
func (f SharedRequest) Config() *SharedConfig {
	worker := f.Worker
	if worker == "" {
		host, _ := os.Hostname()
		worker = fmt.Sprintf("%s-%d", host, os.Getpid())
	}
	return &SharedConfig{URL: f.Storage, Study: f.Study, Worker: worker, Parallel: f.Parallel, Beat: f.Beat, Timeout: f.Timeout}
}

// CheckBackend checks r against the backend the settings name: kind, and
// production, the production config (backend.config).
func (r SweepRequest) CheckBackend(kind, production string) error {
	if r.ApplyBest && production == "" {
		return inputerr.Wrap(errors.New("--apply-best: backend.config must name the production engine config to promote into"))
	}
	if r.Shared.Parallel > 1 && kind == kinds.HTTP {
		return inputerr.Wrap(fmt.Errorf("--parallel %d: an http backend is one service on one config (backend.config); replicas side by side would rewrite and restart it under each other (use the process kind, or one worker per service)", r.Shared.Parallel))
	}
	return nil
}

// ExpandExperiments reads the experiment file (the shipped shortlist for
// "") and expands its trials, writing the warnings to log.
func ExpandExperiments(path string, log io.Writer) (*experiments.ExperimentFile, []experiments.TrialSpec, error) {
	ef, err := LoadExperiments(path)
	if err != nil {
		return nil, nil, inputerr.Wrap(err)
	}
	trials, warnings, err := ef.Expand()
	if err != nil {
		return nil, nil, inputerr.Wrap(err)
	}
	for _, w := range warnings {
		fmt.Fprintln(log, "warning:", w)
	}
	return ef, trials, nil
}

// ReplayFor is a sweep's replay settings for mode and verify. Replay
// needs a backend that can resolve a trial's fusion settings (a
// backend.FusionResolver); other backends run live: ModeReplay is refused
// for them and auto means live (nil).
func ReplayFor(f backend.Factory, mode string, verify int) (*ReplayOptions, error) {
	m, err := ParseMode(mode)
	if err != nil {
		return nil, inputerr.Wrap(fmt.Errorf("--mode: %w", err))
	}
	if verify < 0 {
		return nil, inputerr.Wrap(fmt.Errorf("--verify: must be >= 0 (got %d)", verify))
	}
	if verify == 0 {
		verify = -1 // none through overrides; the winner is still confirmed
	}
	r, ok := f.(backend.FusionResolver)
	if !ok {
		if m == ModeReplay {
			return nil, inputerr.Wrap(errors.New("--mode replay: needs a backend kind that replays (embedded, postgres or weaviate; process and http backends run live: use --mode live or auto)"))
		}
		return nil, nil
	}
	return &ReplayOptions{Mode: m, Resolve: r.Fusion, Verify: verify}, nil
}

// LiveOnly turns replay off for a shared study (every shared trial runs
// live), refusing ModeReplay; an explicit auto (given) gets a note on log.
func (c *Config) LiveOnly(given bool, log io.Writer) error {
	if c.Replay == nil {
		return nil
	}
	switch c.Replay.Mode {
	case ModeReplay:
		return inputerr.Wrap(errors.New("--mode replay: studies shared through --storage or --parallel run every trial live (replay is for single-process sweeps and studies); use --mode live or auto"))
	case ModeAuto:
		if given {
			fmt.Fprintln(log, "note: --mode auto: studies shared through --storage or --parallel run every trial live")
		}
	}
	c.Replay = nil
	return nil
}

// Lock takes a sweep's locks, c.Store open: a shared study on an http
// backend (kind) locks the one service's config (production); any other
// sweep locks its run (and the config it rewrites or promotes into) and
// is set up to resume. Messages about a held lock go to log; unlock is
// never nil.
func (c *Config) Lock(r SweepRequest, shared bool, kind, production string, log io.Writer) (unlock func(), err error) {
	if shared {
		c.Shared = r.Shared.Config()
		// An http study's replicas and workers rewrite and restart the
		// one service: only one of them at a time may.
		if kind == kinds.HTTP {
			return runs.LockConfigFile(production, append([]string{"tune"}, r.Args...), log)
		}
		return func() {}, nil
	}
	// The http kind rewrites and restarts backend.config on every trial,
	// --apply-best promotes into it: either way one command at a time,
	// whatever its runs directory.
	lockConfig := ""
	if r.ApplyBest || kind == kinds.HTTP {
		lockConfig = production
	}
	c.Resume, c.RetryFailed, c.ResumeHint = r.Resume, r.RetryFailed, r.ResumeHint
	return c.Store.LockFor(lockConfig, r.Args, log)
}

// StoppedEarly explains a run stopped by eval.max_consecutive_failures
// (ErrStoppedEarly): what was kept and how to go on. Other errors are
// returned as they are.
func (c Config) StoppedEarly(out *Outcome, runErr error) error {
	if !errors.Is(runErr, ErrStoppedEarly) {
		return runErr
	}
	next := "run again"
	if c.ResumeHint != nil {
		next = c.ResumeHint(out.Run.ID())
	}
	return fmt.Errorf("%w\nthe %d finished trials are kept (eval.max_consecutive_failures is %d; 0 never stops early); fix the cause and %s",
		runErr, len(out.Trials), c.MaxConsecutiveFailures, next)
}

// SharedLeaderboardAt is the combined leaderboard of the shared study
// ("" sampler.DefaultStudyName) kept in the database at url: a bad url
// or an unknown study is an inputerr.Error.
func SharedLeaderboardAt(ctx context.Context, url, study string) (runs.Leaderboard, error) {
	db, err := openStudyStore(ctx, url)
	if err != nil {
		return runs.Leaderboard{}, err
	}
	defer db.Close()
	if study == "" {
		study = sampler.DefaultStudyName
	}
	lb, err := SharedLeaderboard(ctx, db, study)
	if errors.Is(err, studystore.ErrNoStudy) {
		return lb, inputerr.Wrap(err)
	}
	return lb, err
}
