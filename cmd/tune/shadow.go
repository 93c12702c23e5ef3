package main

import (
	"context"
	"fmt"

	"github.com/fusiontune/fusiontune/internal/cli"
	"github.com/fusiontune/fusiontune/runs"

	"github.com/fusiontune/fusiontune/metrics/stats"
	"github.com/fusiontune/fusiontune/tuner/shadow"
)

var shadowUsage = usage("shadow")

var shadowSpec = cli.Spec{Name: "shadow", Usage: shadowUsage, Flags: []cli.Flag{configFlag, runsDirFlag, labelsFlag,
	cli.String("log", "", "query logs, comma-separated (rotated files LOG.1, LOG.2 ... are read too)").Required(),
	cli.String("control", "log", "control: log, an engine config file, or run:RUN[:TRIAL]"),
	cli.String("treatment", "", "treatment: an engine config file, run:RUN[:TRIAL], or shadow (the live shadow mode's logged answers)").Required(),
	cli.Int("k", 10, fmt.Sprintf("depth compared, in [1, %d]", shadow.MaxK)).Range(1, shadow.MaxK),
	cli.String("metric", "NDCG@10", "metric of the judged comparison"),
	cli.String("qrels", "", "TREC qrels of the harvested query ids"),
	cli.String("dataset", "", "dataset id in the label store whose labels judge the queries"),
	cli.Float("effect", 0.02, "smallest metric difference the sequential test looks for, > 0"),
	cli.Float("alpha", 0.05, "sequential test's false-positive rate, in (0, 0.5]"),
	cli.Float("beta", 0.2, "sequential test's false-negative rate, in (0, 0.5]"),
	cli.Int("burn-in", stats.DefaultSPRTBurnIn, fmt.Sprintf("queries seen before the sequential test may stop, in [%d, %d]", stats.MinSPRTBurnIn, stats.MaxSPRTBurnIn)),
	cli.Bool("skip-bad-lines", false, "skip (and count) malformed log lines"),
	cli.String("format", "text", "output: text or json").OneOf("text", "json")}}

func runShadow(ctx context.Context, a *app, args []string) error {
	fs, err := a.parse(shadowSpec, args)
	if err != nil {
		return err
	}
	r := shadow.Request{Logs: fs.Str("log"), SkipBad: fs.Bool("skip-bad-lines"), Control: fs.Str("control"), Treatment: fs.Str("treatment"),
		K: fs.Int("k"), Metric: fs.Str("metric"), Qrels: fs.Str("qrels"), Dataset: fs.Str("dataset"),
		SPRT: stats.SPRTOptions{Alpha: fs.Float("alpha"), Beta: fs.Float("beta"), Effect: fs.Float("effect"), BurnIn: fs.Int("burn-in")}}
	if fs.NArg() > 0 {
		return usageErrorf("shadow: unexpected arguments %q", fs.Args())
	}
	if err := r.Check(); err != nil {
		return runError(err)
	}
	s, err := settingsOf(fs)
	if err != nil {
		return err
	}
	r.Seed, r.LabelsURL = seedOf(s.Stats.Seed), s.LabelsURL()
	r.OpenStore = func() (*runs.Store, error) { return a.openStore(s.RunsDir) }
	if r.Dataset != "" {
		a.secrets.AddURLPassword(r.LabelsURL)
	}
	c, err := r.Config(ctx)
	if err != nil {
		return runError(err)
	}
	fmt.Fprintf(a.stderr, "shadow: %d searches read (%d bad lines skipped); answering %s and %s\n", len(c.Log.Searches), c.Log.Skipped, c.Control.Name, c.Treatment.Name)
	res, err := shadow.Shadow(ctx, c)
	if err != nil {
		return inputError(err)
	}
	if fs.Str("format") == "json" {
		return res.WriteJSON(a.stdout)
	}
	return res.WriteText(a.stdout, 5)
}

// seedOf is the stats seed, 0 when unset.
func seedOf(p *int64) int64 {
	if p == nil {
		return 0
	}
	return *p
}
