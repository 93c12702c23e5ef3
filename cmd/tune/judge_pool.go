package main

import (
	"context"
	"fmt"

	"github.com/fusiontune/fusiontune/cmd/tune/internal/cli"
	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner/dataset"
	"github.com/fusiontune/fusiontune/tuner/judging"
	"github.com/fusiontune/fusiontune/tuner/judging/decision"
	"github.com/fusiontune/fusiontune/tuner/judging/labels"
	"github.com/fusiontune/fusiontune/tuner/judging/pool"
	"github.com/fusiontune/fusiontune/tuner/scoring"
)

var judgePoolSpec = cli.Spec{Name: "judge pool", Usage: usage("judge-pool"), Args: cli.ArgRange(1, 1, "one RUN"), Flags: []cli.Flag{configFlag, runsDirFlag,
	cli.String("strategy", decision.StrategyDepth, "depth (the top ranks of the chosen trials) or decision (the pairs that can change the promotion decision)").OneOf(decision.Strategies...),
	cli.Int("depth", pool.DefaultDepth, "ranks of each ranking to pool (1..1000)").Range(1, pool.MaxDepth),
	cli.String("trials", judging.DefaultPoolTrials, "top:N, all, or trial names separated by commas"),
	cli.Bool("retrievers", false, "also pool each retriever's own candidate list"),
	cli.String("out", "", "write the pool's JSON lines to this file instead of stdout"),
	cli.String("format", "text", "statistics as text or json").OneOf("text", "json")}}

// runJudgePool is `tune judge pool`.
func runJudgePool(ctx context.Context, a *app, args []string) error {
	fs, s, _, run, err := a.parseRun(judgePoolSpec, args)
	if err != nil {
		return err
	}
	a.secrets.AddURLPassword(s.JudgeStoreURL())
	if fs.Str("strategy") == decision.StrategyDecision {
		return a.decisionPool(ctx, fs, s, run)
	}
	p, err := judging.Pool(ctx, run, s.JudgeStoreURL(), judging.PoolOptions{Depth: fs.Int("depth"), Trials: fs.Str("trials"), Retrievers: fs.Bool("retrievers")})
	if err != nil {
		return err
	}
	return judging.WritePool(p, fs.Str("out"), fs.Str("format"), a.stdout, a.stderr)
}

// decisionPool is `tune judge pool --strategy decision`: the run's trials
// scored under the settings' dataset merged with the label store.
func (a *app) decisionPool(ctx context.Context, fs *cli.Parsed, s *settings, run *runs.Run) error {
	for _, name := range []string{"depth", "trials", "retrievers"} {
		if fs.Given(name) {
			return inputError(fmt.Errorf("--%s: not with --strategy decision (it weighs every trial's recorded top hits)", name))
		}
	}
	ds, err := s.OpenDataset()
	if err != nil {
		return err
	}
	id := dataset.RunDatasetID(run)
	if url := s.JudgeStoreURL(); !labels.Absent(url) {
		if err := ds.MergeLabels(ctx, url, id); err != nil {
			return err
		}
	}
	sc, err := s.Score.Scorer(ds.Golden.Scale)
	if err != nil {
		return inputError(err)
	}
	an, err := judging.DecisionPool(run, judging.DecisionPoolOptions{Judgments: scoring.JudgmentsOf(ds.Queries), Scorer: sc, MaxGrade: ds.Golden.Scale.Max, Dataset: id})
	if err != nil {
		return err
	}
	return judging.WriteDecisionPool(an, fs.Str("out"), fs.Str("format"), a.stdout, a.stderr)
}
