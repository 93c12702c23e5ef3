package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/fusiontune/fusiontune/tuner/judging"
	"github.com/fusiontune/fusiontune/tuner/judging/decision"

	"github.com/fusiontune/fusiontune/tuner/verdict"

	"github.com/fusiontune/fusiontune/cmd/tune/internal/cli"
	tunesettings "github.com/fusiontune/fusiontune/cmd/tune/internal/settings"
	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner"
)

func runSweep(ctx context.Context, a *app, args []string) error {
	return a.sweep(ctx, "sweep", args)
}

// sweepSpec is the command line of `tune sweep` and, with cmd "worker",
// of `tune worker`.
func sweepSpec(cmd string) cli.Spec {
	return cli.Spec{Name: cmd, Usage: usage(cmd), Args: &cli.Args{Want: "experiment files go after --experiments"}, Flags: append([]cli.Flag{
		cli.String("experiments", "", "experiment file (JSON or YAML); default: the shipped shortlist"),
		configFlag, runsDirFlag, datasetIDFlag,
		cli.String("split", "", "golden-set split to evaluate: all, dev or test (setting dataset.split; unset: dev, confirmed on test, from 100 judged queries, else all)").Bind("dataset.split"),
		cli.String("resume", "", "continue the interrupted run RUN without redoing its finished trials"),
		cli.Bool("retry-failed", false, "with --resume: run the run's failed trials again (their new records replace the failed ones)"),
		cli.String("format", "text", "leaderboard format on stdout: text, json, md or csv").OneOf(runs.Formats...).AlsoAccepts("markdown"),
		cli.Bool("apply-best", false, "promote the best trial to the production config (backend.config) after the sweep"),
		cli.Bool("force", false, "with --apply-best: promote even when the promotion policy refuses (recorded in promotions.jsonl)"),
		cli.String("mode", string(tuner.ModeAuto), "auto (the default: replay where the backend returns candidate lists, verify the best live, confirm the winner by apply + restart; live elsewhere), live (apply and evaluate every trial) or replay (like auto, but fail when the backend returns no candidate lists)"),
		cli.String("category", "", "evaluate only the golden set's queries in this category (named in the leaderboard's warnings)"),
		cli.String("lang", "", "evaluate only the golden set's queries in this language, or all (named in the leaderboard's warnings)"),
		cli.Bool("verbose", false, "after the leaderboard, a line per query of the best trial on stderr: id, text, rank of the first relevant result, the grades of the top 10 (- unjudged)"),
		cli.Int("verify", tuner.DefaultVerify, "replayed trials re-run live through per-request fusion overrides (0: none; the winner is always confirmed by apply + restart); default "+strconv.Itoa(tuner.DefaultVerify)),
	}, append(sharedFlagSpecs, judgeFlagSpecs...)...)}
}

// judgeFlagSpecs are a sweep's judge-as-you-tune flags.
var judgeFlagSpecs = []cli.Flag{
	cli.String("judge", "", "after the sweep, judge the leading trials' unjudged hits and rescore: llm (settings judge.*) or file:PATH (a qrels file)"),
	cli.Int("judge-budget", 0, "with --judge: the most (query, document) pairs to judge, >= 1"),
	cli.Float("judge-target", judging.DefaultJudgeTarget, "with --judge: stop once the leading trials' Judged@10 reaches this, in (0, 1]"),
	cli.Int("judge-leading", judging.DefaultJudgeLeading, "with --judge: how many of the best trials to pool and measure, >= 1"),
	cli.String("judge-strategy", decision.StrategyDepth, "with --judge: each round's pairs: depth (the leading trials' top 10) or decision (those whose label can change the promotion decision; stops once it is settled)").OneOf(decision.Strategies...),
}

// sweepRequestOf is the sweep (or, with cmd "worker", the worker) the
// flags ask for.
func sweepRequestOf(fs *cli.Parsed, cmd string, args []string) tuner.SweepRequest {
	return tuner.SweepRequest{Experiments: fs.Str("experiments"), Resume: fs.Str("resume"), RetryFailed: fs.Bool("retry-failed"), ApplyBest: fs.Bool("apply-best"),
		Mode: fs.Str("mode"), ModeGiven: fs.Given("mode"), Verify: fs.Int("verify"), Worker: cmd == "worker", Shared: sharedRequestOf(fs), Args: args,
		ResumeHint: func(id string) string { return fmt.Sprintf("resume with '%s'", cli.ResumeCommand(args, id)) }}
}

// sweepJudgeOf is the judge-as-you-tune request the flags make.
func sweepJudgeOf(fs *cli.Parsed) tunesettings.SweepJudge {
	j := tunesettings.SweepJudge{Spec: fs.Str("judge"), Budget: fs.Int("judge-budget"), Target: fs.Float("judge-target"), Leading: fs.Int("judge-leading"), Strategy: fs.Str("judge-strategy")}
	for _, name := range []string{"judge-budget", "judge-target", "judge-leading", "judge-strategy"} {
		if fs.Given(name) {
			j.Given = append(j.Given, name)
		}
	}
	return j
}

// sweep is `tune sweep` and, with cmd "worker", `tune worker`: the same
// flags, the worker requiring a shared study.
func (a *app) sweep(ctx context.Context, cmd string, args []string) error {
	started := time.Now()
	defer tuner.GCFloor()()
	fs, err := a.parse(sweepSpec(cmd), args)
	if err != nil {
		return err
	}
	r := sweepRequestOf(fs, cmd, args)
	r.Phases = phasesOf(os.Getenv, started)
	shared, err := r.Check()
	if err != nil {
		return err
	}
	s, err := a.settingsOf(fs)
	if err != nil {
		return err
	}
	s.FilterCategory, s.FilterLanguage = fs.Str("category"), fs.Str("lang")
	// Everything the user wrote is read and checked before any run
	// directory exists or any backend starts.
	c, err := s.PrepareSweep(r, shared, sweepJudgeOf(fs), a.secrets, a.stderr)
	if err != nil {
		return err
	}
	c.Started, c.Progress = started, &tuner.TextProgress{W: a.stderr, Terminal: cli.IsTerminal(a.stderr)}
	if c.Store, err = a.openStore(s.RunsDir); err != nil {
		return err
	}
	a.warnUnfinished(s, c.Store)
	unlock, err := c.Lock(r, shared, s.Backend.Kind, s.Backend.Config, a.stderr)
	defer unlock()
	if err != nil {
		return err
	}
	return a.runAndFinish(ctx, c, s, r.ApplyBest, fs.Str("format"), fs.Bool("force"), fs.Bool("verbose"))
}

// runAndFinish runs the sweep, prints its leaderboard in format and gates
// and, with applyBest, promotes the best trial. A sweep with failed
// trials exits 3. With verbose, the best trial's per-query lines follow
// the leaderboard on stderr.
func (a *app) runAndFinish(ctx context.Context, c *tuner.Config, s *settings, applyBest bool, format string, force, verbose bool) error {
	out, runErr := tuner.Run(ctx, *c)
	if out == nil {
		return runErr
	}
	if err := out.Leaderboard.Render(a.stdout, format); err != nil {
		return err
	}
	if best, ok := out.Best(); ok && verbose {
		if err := tuner.WriteQueryLines(a.stderr, out.Run, best, c.Queries); err != nil {
			return err
		}
	}
	if runErr != nil {
		return c.StoppedEarly(out, runErr)
	}
	best, _ := out.Best()
	if err := verdict.WriteGates(a.stderr, out.Run, best, out.Gates); err != nil {
		if applyBest {
			return failedError(errors.New(verdict.NotPromoted(out.Gates)))
		}
		return err
	}
	if applyBest {
		if err := a.promote(ctx, s, c.Store, out.Run, best, force); err != nil {
			return err
		}
	}
	if err := verdict.FailedTrials(out.Trials); err != nil {
		return partialError(err)
	}
	return nil
}
