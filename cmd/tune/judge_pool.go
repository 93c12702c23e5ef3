package main

import (
	"context"

	"github.com/fusiontune/fusiontune/internal/cli"
	"github.com/fusiontune/fusiontune/tuner"
	"github.com/fusiontune/fusiontune/tuner/judging"
	"github.com/fusiontune/fusiontune/tuner/pool"
)

var judgePoolUsage = usage("judge-pool")

var judgePoolSpec = cli.Spec{Name: "judge pool", Usage: judgePoolUsage, Flags: []cli.Flag{configFlag, runsDirFlag,
	cli.Int("depth", pool.DefaultDepth, "ranks of each ranking to pool (1..1000)").Range(1, pool.MaxDepth),
	cli.String("trials", tuner.DefaultPoolTrials, "top:N, all, or trial names separated by commas"),
	cli.Bool("retrievers", false, "also pool each retriever's own candidate list"),
	cli.String("out", "", "write the pool's JSON lines to this file instead of stdout"),
	cli.String("format", "text", "statistics as text or json").OneOf("text", "json")}}

// runJudgePool is `tune judge pool`.
func runJudgePool(ctx context.Context, a *app, args []string) error {
	fs, err := a.parse(judgePoolSpec, args)
	if err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usageErrorf("want one RUN (got %d arguments)", fs.NArg())
	}
	s, err := settingsOf(fs)
	if err != nil {
		return err
	}
	store, err := a.openStore(s.RunsDir)
	if err != nil {
		return err
	}
	run, err := store.Resolve(fs.Arg(0))
	if err != nil {
		return inputError(err)
	}
	a.secrets.AddURLPassword(s.JudgeStoreURL())
	p, err := judging.Pool(ctx, run, s.JudgeStoreURL(), tuner.PoolOptions{Depth: fs.Int("depth"), Trials: fs.Str("trials"), Retrievers: fs.Bool("retrievers")})
	if err != nil {
		return runError(err)
	}
	return a.writeJudgePool(p, fs.Str("out"), fs.Str("format"))
}

// writeJudgePool writes the pool's pairs to out (stdout when "") and its
// statistics, as text or json, to stdout with out, to stderr without
// (judging.WritePool).
func (a *app) writeJudgePool(p *pool.Pool, out, format string) error {
	return runError(judging.WritePool(p, out, format, a.stdout, a.stderr))
}
