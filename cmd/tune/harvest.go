package main

import (
	"context"
	"fmt"

	"github.com/fusiontune/fusiontune/cmd/tune/internal/cli"
	"github.com/fusiontune/fusiontune/experiments"
	"github.com/fusiontune/fusiontune/internal/querylog"
	"github.com/fusiontune/fusiontune/tuner/judging"
	"github.com/fusiontune/fusiontune/tuner/judging/harvest"
	"github.com/fusiontune/fusiontune/tuner/judging/pool"
)

var harvestSpec = cli.Spec{Name: "harvest", Usage: usage("harvest"), Flags: []cli.Flag{configFlag, labelsFlag,
	cli.String("out", "", "golden set to write (native JSON); refused when it exists, unless --update"),
	cli.String("sample", harvest.SampleRandom, "sampling: random, top (most frequent) or pps (probability proportional to frequency)"),
	cli.Int("n", 200, fmt.Sprintf("queries to sample, in [1, %d]", harvest.MaxN)),
	cli.Int64("seed", 1, "seed of the random and pps samples"),
	cli.Bool("stratify", false, "sample each logged category in proportion to its distinct queries"),
	cli.Bool("update", false, "add the new queries to an existing --out, keeping every query it has"),
	cli.Bool("skip-bad-lines", false, "skip (and count) malformed log lines instead of failing on the first"),
	cli.Bool("implicit", false, "grade the golden set's queries from clicks into the label store (source implicit)"),
	cli.Float("min-expected", harvest.DefaultMinExpected, fmt.Sprintf("expected clicks a pair needs before it is graded, in (0, %g]", harvest.MaxMinExpected)),
	cli.String("dataset", "", "dataset id of the implicit labels and the pool (default: --out's file name without extension)"),
	cli.Bool("judge", false, "pool the added queries' logged answers for judging (--pool)"),
	cli.String("pool", "", "pool file --judge writes (default: --out's name with .pool.jsonl); refused when it exists"),
	cli.Int("pool-depth", pool.DefaultDepth, fmt.Sprintf("ranks of each logged answer --judge pools, in [1, %d]", pool.MaxDepth)).Range(1, pool.MaxDepth)}}

func runHarvest(ctx context.Context, a *app, args []string) error {
	fs, err := a.parse(harvestSpec, args)
	if err != nil {
		return err
	}
	s, err := a.settingsOf(fs)
	if err != nil {
		return err
	}
	scale := experiments.DefaultScale()
	c := harvest.Config{Logs: fs.Args(), Read: querylog.ReadOptions{SkipBad: fs.Bool("skip-bad-lines")}, Out: fs.Str("out"), Update: fs.Bool("update"), Implicit: fs.Bool("implicit"),
		Sample: harvest.Options{Method: fs.Str("sample"), N: fs.Int("n"), Seed: fs.Int64("seed"), Stratify: fs.Bool("stratify")},
		Clicks: harvest.ClickOptions{MinExpected: fs.Float("min-expected"), Relevant: scale.Relevant, Strong: scale.Strong, Exact: scale.Exact}}
	a.secrets.AddURLPassword(s.LabelsURL())
	return judging.Harvest(ctx, judging.HarvestRequest{Config: c, StoreURL: s.LabelsURL(), Dataset: fs.Str("dataset"),
		Judge: fs.Bool("judge"), Pool: fs.Str("pool"), PoolDepth: fs.Int("pool-depth")}, a.stdout, a.stderr)
}
