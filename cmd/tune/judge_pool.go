package main

import (
	"context"

	"github.com/fusiontune/fusiontune/cmd/tune/internal/cli"
	"github.com/fusiontune/fusiontune/tuner/judging"
	"github.com/fusiontune/fusiontune/tuner/judging/pool"
)

var judgePoolSpec = cli.Spec{Name: "judge pool", Usage: usage("judge-pool"), Args: cli.ArgRange(1, 1, "one RUN"), Flags: []cli.Flag{configFlag, runsDirFlag,
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
	p, err := judging.Pool(ctx, run, s.JudgeStoreURL(), judging.PoolOptions{Depth: fs.Int("depth"), Trials: fs.Str("trials"), Retrievers: fs.Bool("retrievers")})
	if err != nil {
		return err
	}
	return judging.WritePool(p, fs.Str("out"), fs.Str("format"), a.stdout, a.stderr)
}
