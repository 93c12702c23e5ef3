package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/fusiontune/fusiontune/cmd/tune/internal/cli"
	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner/judging"
	"github.com/fusiontune/fusiontune/tuner/judging/robust"
	"github.com/fusiontune/fusiontune/tuner/scoring"
	"github.com/fusiontune/fusiontune/tuner/verdict"
)

var judgeRobustSpec = cli.Spec{Name: "judge robust", Usage: usage("judge-robust"), Args: cli.ArgRange(1, 1, "one RUN"), Flags: []cli.Flag{configFlag, runsDirFlag,
	cli.Int("resamples", robust.DefaultResamples, "label resamples by confidence (0..10000)").Range(0, robust.MaxResamples),
	cli.Int64("seed", 1, "seed of the resamples"),
	cli.Int("top", robust.DefaultTop, "the reference's best trials Kendall tau is over (2..1000)").Range(2, 1000),
	cli.String("format", "text", "text or json").OneOf("text", "json")}}

// runJudgeRobust is `tune judge robust`.
func runJudgeRobust(ctx context.Context, a *app, args []string) error {
	fs, s, _, run, err := a.parseRun(judgeRobustSpec, args)
	if err != nil {
		return err
	}
	url := s.JudgeStoreURL()
	a.secrets.AddURLPassword(url)
	ds, err := s.OpenDataset()
	if err != nil {
		return err
	}
	sc, err := s.Score.Scorer(ds.Golden.Scale)
	if err != nil {
		return inputError(err)
	}
	if fs.Int64("seed") < 0 {
		return usageErrorf("--seed: want an integer >= 0 (got %d)", fs.Int64("seed"))
	}
	n := fs.Int("resamples")
	rep, err := judging.Robust(ctx, run, url, judging.RobustOptions{Gold: scoring.JudgmentsOf(ds.Queries), Scorer: sc, MaxGrade: ds.Golden.Scale.Max,
		Top: fs.Int("top"), Resamples: &n, Seed: uint64(fs.Int64("seed"))})
	if err != nil {
		return err
	}
	lb, err := run.ReadLeaderboard()
	if err != nil {
		return err
	}
	v := runs.Verdict{Line: "no verdict recorded"}
	if lb.Verdict != nil {
		v = *lb.Verdict
	}
	require := s.Promotion.RequireRobustWinner
	v = verdict.JudgeDependent(v, rep.DependsOn(), require)
	if fs.Str("format") == "json" {
		data, err := runs.MarshalJSON(struct {
			*robust.Report
			Verdict runs.Verdict `json:"verdict"`
		}{rep, v})
		if err != nil {
			return err
		}
		if _, err := a.stdout.Write(data); err != nil {
			return err
		}
	} else {
		if err := rep.WriteText(a.stdout); err != nil {
			return err
		}
		fmt.Fprintf(a.stdout, "verdict: %s\n", v.Line)
	}
	if require && !rep.Robust {
		return failedError(errors.New("the winner depends on the judge (" + verdict.RequireRobustSetting + ")"))
	}
	return nil
}
