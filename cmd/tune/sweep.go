package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/fusiontune/fusiontune/internal/cli"

	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner"
)

var sweepUsage = usage("sweep")

func runSweep(ctx context.Context, a *app, args []string) error {
	return a.sweep(ctx, "sweep", args)
}

// sweepFlags are the flags of a sweep (and of a worker).
type sweepFlags struct {
	fs     *cli.Parsed
	req    tuner.SweepRequest
	format string
	force  bool
	judge  *sweepJudgeFlags
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
	f = &sweepFlags{fs: fs, format: fs.Str("format"), force: fs.Bool("force"), judge: judgeFlagsOf(fs), req: tuner.SweepRequest{
		Experiments: fs.Str("experiments"), Resume: fs.Str("resume"), RetryFailed: fs.Bool("retry-failed"), ApplyBest: fs.Bool("apply-best"),
		Mode: fs.Str("mode"), ModeGiven: fs.Given("mode"), Verify: fs.Int("verify"), Worker: cmd == "worker", Shared: sharedRequestOf(fs), Args: args,
		ResumeHint: func(id string) string { return fmt.Sprintf("resume with '%s'", cli.ResumeCommand(args, id)) }}}
	if shared, err = f.req.Check(); err != nil {
		return nil, false, runError(err)
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
	f.req.Phases = phasesOf(os.Getenv, sweepStart)
	s, err := settingsOf(f.fs)
	if err != nil {
		return err
	}
	if err := f.req.CheckBackend(s.Backend.Kind, s.Backend.Config); err != nil {
		return runError(err)
	}
	// Everything the user wrote is read and checked before any run
	// directory exists or any backend starts.
	if err := inputError(s.CheckInputs()); err != nil {
		return err
	}
	expFile, err := s.ResumeExperiments(f.req.Experiments, f.req.Resume)
	if err != nil {
		return runError(err)
	}
	c, err := s.SweepConfig(f.req, expFile, a.secrets, a.stderr)
	if err != nil {
		return runError(err)
	}
	c.Started, c.Progress = sweepStart, &tuner.TextProgress{W: a.stderr, Terminal: cli.IsTerminal(a.stderr)}
	if err := a.setJudge(f, s, c, shared); err != nil {
		return err
	}
	if shared {
		if err := c.LiveOnly(f.req.ModeGiven, a.stderr); err != nil {
			return runError(err)
		}
	}
	if c.Store, err = a.openStore(s.RunsDir); err != nil {
		return err
	}
	a.warnUnfinished(s, c.Store)
	unlock, err := c.Lock(f.req, shared, s.Backend.Kind, s.Backend.Config, a.stderr)
	defer unlock()
	if err != nil {
		return err
	}
	return a.runAndFinish(ctx, c, s, f)
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
	if runErr != nil {
		return runError(c.StoppedEarly(out, runErr))
	}
	best, _ := out.Best()
	if err := tuner.WriteGates(a.stderr, out.Run, best, out.Gates); err != nil {
		if f.req.ApplyBest {
			return failedError(errors.New(tuner.NotPromoted(out.Gates)))
		}
		return err
	}
	if f.req.ApplyBest {
		if err := a.promote(ctx, s, c.Store, out.Run, best, f.force); err != nil {
			return err
		}
	}
	return partialOutcome(out.Trials)
}

// runError classifies an error of the library: the user's input
// (tuner.InputError, exit 2) or a failed run (exit 1).
func runError(err error) error {
	var ie *tuner.InputError
	if errors.As(err, &ie) {
		return inputError(err)
	}
	return failedError(err)
}

// partialOutcome is the exit-3 error of a sweep that finished with failed
// trials (tuner.FailedTrials), nil when every trial succeeded.
func partialOutcome(trials []runs.TrialRecord) error {
	if err := tuner.FailedTrials(trials); err != nil {
		return partialError(err)
	}
	return nil
}

// verifyUsage documents --verify's default.
var verifyUsage = "replayed trials re-run live through per-request fusion overrides (0: none; the winner is always confirmed by apply + restart); default " + strconv.Itoa(tuner.DefaultVerify)
