package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/fusiontune/fusiontune/internal/cli"

	"github.com/fusiontune/fusiontune/experiments"
	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner"
)

const sweepUsage = `[--experiments FILE] [--config tune.yaml] [--runs-dir DIR] [--resume RUN [--retry-failed]] [--apply-best] [--mode live|replay|auto] [--verify N] [--format text|json|md|csv]
       [--storage URL [--study NAME]] [--parallel N] [--judge file:PATH --judge-budget N [--judge-target 0.9] [--judge-leading 5]]

Applies every trial of the experiment file to the backend, restarting it,
evaluates the golden set, records the run under the runs directory and
prints the leaderboard. With no settings file, the embedded engine runs on
the shipped demo dataset.`

func runSweep(ctx context.Context, a *app, args []string) error {
	return a.sweep(ctx, "sweep", args)
}

// sweepFlags are the flags of a sweep (and of a worker).
type sweepFlags struct {
	fs                                *cli.Parsed
	experiments, config, resume, mode string
	format                            string
	applyBest, force, retryFailed     bool
	verify                            int
	shared                            *sharedFlags
	judge                             *sweepJudgeFlags
}

// sweepSpec is the command line of `tune sweep` and, with cmd "worker"
// and usage workerUsage, of `tune worker`.
func sweepSpec(cmd, usage string) cli.Spec {
	return cli.Spec{Name: cmd, Usage: usage, Flags: append([]cli.Flag{
		cli.String("experiments", "", "experiment file (JSON or YAML); default: the shipped shortlist"),
		configFlag, runsDirFlag, datasetIDFlag,
		cli.String("split", "", "golden-set split to evaluate: all, dev or test (setting dataset.split; unset: dev, confirmed on test, from 100 judged queries, else all)").Bind("dataset.split"),
		cli.String("resume", "", "continue the interrupted run RUN without redoing its finished trials"),
		cli.Bool("retry-failed", false, "with --resume: run the run's failed trials again (their new records replace the failed ones)"),
		cli.String("format", "text", "leaderboard format on stdout: text, json, md or csv").OneOf(runs.Formats...).AlsoAccepts("markdown"),
		cli.Bool("apply-best", false, "promote the best trial to the production config (backend.config) after the sweep"),
		cli.Bool("force", false, "with --apply-best: promote even when the promotion policy refuses (recorded in promotions.jsonl)"),
		cli.String("mode", string(tuner.ModeAuto), "auto (the default: replay where the backend returns candidate lists, verify the best live, confirm the winner by apply + restart; live elsewhere), live (apply and evaluate every trial) or replay (like auto, but fail when the backend returns no candidate lists)"),
		cli.Int("verify", tuner.DefaultVerify, verifyUsage),
	}, append(sharedFlagSpecs, judgeFlagSpecs...)...)}
}

// parseSweepFlags reads the flags of `tune sweep` or, with cmd "worker",
// `tune worker`, and checks those that need no file.
func parseSweepFlags(a *app, cmd string, args []string) (f *sweepFlags, shared bool, err error) {
	usage := sweepUsage
	if cmd == "worker" {
		usage = workerUsage
	}
	fs, err := a.parse(sweepSpec(cmd, usage), args)
	if err != nil {
		return nil, false, err
	}
	f = &sweepFlags{fs: fs, experiments: fs.Str("experiments"), config: fs.Str("config"), resume: fs.Str("resume"), mode: fs.Str("mode"),
		format: fs.Str("format"), applyBest: fs.Bool("apply-best"), force: fs.Bool("force"), retryFailed: fs.Bool("retry-failed"),
		verify: fs.Int("verify"), shared: sharedFlagsOf(fs), judge: judgeFlagsOf(fs)}
	if shared, err = f.shared.check(cmd, f.resume, f.applyBest); err != nil {
		return nil, false, err
	}
	if f.retryFailed && f.resume == "" {
		return nil, false, usageErrorf("--retry-failed: only with --resume RUN")
	}
	if fs.NArg() > 0 {
		return nil, false, usageErrorf("unexpected argument %q (experiment files go after --experiments)", fs.Arg(0))
	}
	return f, shared, nil
}

// sweep is `tune sweep` and, with cmd "worker", `tune worker`: the same
// flags, the worker requiring a shared study.
func (a *app) sweep(ctx context.Context, cmd string, args []string) error {
	sweepStart := time.Now()
	f, shared, err := parseSweepFlags(a, cmd, args)
	if err != nil {
		return err
	}
	s, err := settingsOf(f.fs)
	if err != nil {
		return err
	}
	if f.applyBest && s.Backend.Config == "" {
		return inputError(errors.New("--apply-best: backend.config must name the production engine config to promote into"))
	}
	if f.shared.parallel > 1 && s.Backend.Kind == kindHTTP {
		return usageErrorf("--parallel %d: an http backend is one service on one config (backend.config); replicas side by side would rewrite and restart it under each other (use the process kind, or one worker per service)", f.shared.parallel)
	}
	// Everything the user wrote is read and checked before any run
	// directory exists or any backend starts.
	if err := inputError(s.CheckInputs()); err != nil {
		return err
	}
	expFile, err := s.ResumeExperiments(f.experiments, f.resume)
	if err != nil {
		return runError(err)
	}
	c, err := a.sweepConfig(s, expFile, f.mode, f.verify)
	if err != nil {
		return err
	}
	c.Manifest.Args, c.Started = args, sweepStart
	if err := a.setJudge(f, s, c, shared); err != nil {
		return err
	}
	if shared {
		if err := a.liveOnly(c, f.fs.Given("mode")); err != nil {
			return err
		}
	}
	store, err := a.openStore(s.RunsDir)
	if err != nil {
		return err
	}
	a.warnUnfinished(s, store)
	c.Store = store
	unlock, err := a.lockSweep(c, s, f, shared, args)
	defer unlock()
	if err != nil {
		return err
	}
	return a.runAndFinish(ctx, c, s, f)
}

// lockSweep takes the sweep's locks: a shared study on an http backend
// locks the one service's config; any other sweep locks its run (and the
// config it rewrites or promotes into), and is set up to resume. unlock
// is never nil.
func (a *app) lockSweep(c *tuner.Config, s *settings, f *sweepFlags, shared bool, args []string) (func(), error) {
	if shared {
		c.Shared = f.shared.config()
		// An http study's replicas and workers rewrite and restart the
		// one service: only one of them at a time may.
		if s.Backend.Kind == kindHTTP {
			return runs.LockConfigFile(s.Backend.Config, append([]string{"tune"}, args...), a.stderr)
		}
		return func() {}, nil
	}
	// The http kind rewrites and restarts backend.config on every trial,
	// --apply-best promotes into it: either way one command at a time,
	// whatever its runs directory.
	lockConfig := ""
	if f.applyBest || s.Backend.Kind == kindHTTP {
		lockConfig = s.Backend.Config
	}
	c.Resume, c.RetryFailed = f.resume, f.retryFailed
	c.ResumeHint = func(id string) string { return fmt.Sprintf("resume with '%s'", cli.ResumeCommand(args, id)) }
	return c.Store.LockFor(lockConfig, args, a.stderr)
}

// liveOnly turns replay off for a shared study (tuner.SearchShared
// evaluates every trial live), refusing --mode replay; an explicit --mode
// auto (given says it was on the command line) gets a note.
func (a *app) liveOnly(c *tuner.Config, given bool) error {
	if c.Replay == nil {
		return nil
	}
	switch c.Replay.Mode {
	case tuner.ModeReplay:
		return usageErrorf("--mode replay: studies shared through --storage or --parallel run every trial live (replay is for single-process sweeps and studies); use --mode live or auto")
	case tuner.ModeAuto:
		if given {
			fmt.Fprintln(a.stderr, "note: --mode auto: studies shared through --storage or --parallel run every trial live")
		}
	}
	c.Replay = nil
	return nil
}

// runAndFinish runs the sweep, prints its leaderboard and gates and, with
// --apply-best, promotes the best trial.
func (a *app) runAndFinish(ctx context.Context, c *tuner.Config, s *settings, f *sweepFlags) error {
	out, runErr := tuner.Run(ctx, *c)
	if out == nil {
		return runError(runErr)
	}
	if err := out.Leaderboard.Render(a.stdout, f.format); err != nil {
		return err
	}
	if errors.Is(runErr, tuner.ErrStoppedEarly) {
		next := "run again"
		if c.ResumeHint != nil {
			next = c.ResumeHint(out.Run.ID())
		}
		runErr = fmt.Errorf("%w\nthe %d finished trials are kept (eval.max_consecutive_failures is %d; 0 never stops early); fix the cause and %s",
			runErr, len(out.Trials), s.Eval.MaxConsecutiveFailures, next)
	}
	if runErr != nil {
		return runError(runErr)
	}
	best, _ := out.Best()
	if err := tuner.WriteGates(a.stderr, out.Run, best, out.Gates); err != nil {
		if f.applyBest {
			return failedError(errors.New(tuner.NotPromoted(out.Gates)))
		}
		return err
	}
	if f.applyBest {
		if err := a.promote(ctx, s, c.Store, out.Run, best, f.force); err != nil {
			return err
		}
	}
	return partialOutcome(out.Trials)
}

// runError classifies an error of tuner.Run: the user's input (exit 2) or
// a failed run (exit 1).
func runError(err error) error {
	var ie *tuner.InputError
	if errors.As(err, &ie) {
		return inputError(err)
	}
	return failedError(err)
}

// sweepConfig reads and checks everything a sweep needs from the settings
// (Settings.RunConfig) and the experiment file, before any run directory
// exists or any backend starts.
func (a *app) sweepConfig(s *settings, expFile, mode string, verify int) (*tuner.Config, error) {
	ef, trials, err := a.expandExperiments(expFile)
	if err != nil {
		return nil, err
	}
	c, _, err := s.RunConfig(ef, "tune", a.secrets, a.stderr)
	if err != nil {
		return nil, runError(err)
	}
	if err := tuner.CheckTrials(c.Backend, trials); err != nil {
		return nil, inputError(err)
	}
	if c.Study, err = tuner.StudyFor(ef, c.Backend); err != nil {
		return nil, inputError(err)
	}
	if c.Replay, err = replayOptions(c.Backend, mode, verify); err != nil {
		return nil, err
	}
	if c.Replay != nil {
		c.Replay.Log = a.stderr
	}
	c.Trials, c.Latency, c.Constraints, c.ConstrainSampler = trials, s.Latency.Options(), s.ParsedConstraints, s.Score.ConstrainSampler
	c.Progress, c.Log = &tuner.TextProgress{W: a.stderr, Terminal: cli.IsTerminal(a.stderr)}, a.stderr
	if s.Dataset.Split == experiments.SplitDev {
		c.HeldOut = tuner.HeldOutQueries(s.Dataset, s.EngineCorpusPath(), userCachePath(""))
	}
	return c, nil
}

// expandExperiments reads the experiment file (the shipped shortlist for
// "") and expands its trials, printing the warnings.
func (a *app) expandExperiments(path string) (*experiments.ExperimentFile, []experiments.TrialSpec, error) {
	ef, err := tuner.LoadExperiments(path)
	if err != nil {
		return nil, nil, inputError(err)
	}
	trials, warnings, err := ef.Expand()
	if err != nil {
		return nil, nil, inputError(err)
	}
	for _, w := range warnings {
		fmt.Fprintln(a.stderr, "warning:", w)
	}
	return ef, trials, nil
}

// partialOutcome is the exit-3 error of a sweep that finished with failed
// trials (tuner.FailedTrials), nil when every trial succeeded.
func partialOutcome(trials []runs.TrialRecord) error {
	if err := tuner.FailedTrials(trials); err != nil {
		return partialError(err)
	}
	return nil
}
