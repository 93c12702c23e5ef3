package main

import (
	"bytes"
	"context"
	"fmt"

	"github.com/fusiontune/fusiontune/internal/cli"

	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner"
	"github.com/fusiontune/fusiontune/tuner/pool"
)

const judgePoolUsage = `RUN [--depth 10] [--trials top:5|all|NAME,NAME] [--retrievers] [--out pool.jsonl] [--format text|json]

Pools the unjudged (query, document) pairs in the top --depth (1..1000;
runs record each query's top 20) of the chosen trials' results: top:N the
leaderboard's best N, all every successful trial, or trial names separated
by commas. --retrievers adds each retriever's own candidate list (kept by
replayed trials' collections). Pairs judged by the golden set or by the
label store (dataset.labels) are left out. Pairs are deduplicated and
ordered by priority, the sum over the rankings holding the pair of 1/rank
(ties: more rankings, better rank, query id, document id).

The pool is written as JSON lines ({"dataset","query","doc","priority",
"trials","best_rank"}) to --out, or to stdout without it; the statistics
(pairs, pairs per query, Judged@depth now and if all were judged) go to
stdout with --out, to stderr without. --format json prints the statistics
as JSON.
`

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
	depth, trials, retrievers, out, format := fs.Int("depth"), fs.Str("trials"), fs.Bool("retrievers"), fs.Str("out"), fs.Str("format")
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
	o := tuner.PoolOptions{Depth: depth, Trials: trials, Retrievers: retrievers}
	a.secrets.AddURLPassword(s.JudgeStoreURL())
	if o.Labels, err = tuner.StoreLabels(ctx, s.JudgeStoreURL(), tuner.RunDatasetID(run)); err != nil {
		return runError(err)
	}
	p, err := tuner.PoolRun(run, o)
	if err != nil {
		return runError(err)
	}
	return a.writeJudgePool(p, out, format)
}

// writeJudgePool writes the pool's pairs to out (stdout when "") and its
// statistics, as text or json, to stdout with out, to stderr without.
func (a *app) writeJudgePool(p *pool.Pool, out, format string) error {
	var pairs bytes.Buffer
	if err := pool.WriteJSONL(&pairs, p.Pairs); err != nil {
		return err
	}
	statsTo := a.stderr
	if out != "" {
		if err := runs.WriteFileAtomic(out, pairs.Bytes(), 0o644); err != nil {
			return inputError(fmt.Errorf("--out: %w", err))
		}
		statsTo = a.stdout
	} else if _, err := a.stdout.Write(pairs.Bytes()); err != nil {
		return err
	}
	if format == "json" {
		data, err := runs.MarshalJSON(p.Stats)
		if err != nil {
			return err
		}
		_, err = statsTo.Write(data)
		return err
	}
	return pool.WriteStats(statsTo, p.Stats)
}
