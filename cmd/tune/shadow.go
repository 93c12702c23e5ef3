package main

import (
	"context"
	"fmt"
	"os"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/cmd/tune/internal/cli"
	"github.com/fusiontune/fusiontune/runs"

	"github.com/fusiontune/fusiontune/metrics/stats"
	"github.com/fusiontune/fusiontune/tuner/shadow"
)

var shadowSpec = cli.Spec{Name: "shadow", Usage: usage("shadow"), Args: cli.NoArgs, Flags: []cli.Flag{configFlag, runsDirFlag, labelsFlag,
	cli.String("log", "", "query logs, comma-separated (rotated files LOG.1, LOG.2 ... are read too)").Required(),
	cli.String("control", "log", "control: log, production (the settings' backend as configured, any kind), settings:FILE, an engine config file, or run:RUN[:TRIAL]"),
	cli.String("treatment", "", "treatment: run:RUN[:TRIAL] (on the settings' backend kind), settings:FILE, an engine config file, or shadow (the live shadow mode's logged answers)").Required(),
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
		SPRT:   stats.SPRTOptions{Alpha: fs.Float("alpha"), Beta: fs.Float("beta"), Effect: fs.Float("effect"), BurnIn: fs.Int("burn-in")},
		Getenv: os.Getenv}
	if err := r.Check(); err != nil {
		return err
	}
	s, err := a.settingsOf(fs)
	if err != nil {
		return err
	}
	r.Seed, r.LabelsURL = s.Stats.SeedValue(), s.LabelsURL()
	r.OpenStore = func() (*runs.Store, error) { return a.openStore(s.RunsDir) }
	scratch, err := os.MkdirTemp("", "tune-shadow-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(scratch)
	r.Kind, r.Backend = s.Backend.Kind, shadowBackend(s, a, scratch)
	r.Settings = func(file string) (shadow.Opener, error) {
		other, err := loadSettings(file, nil, nil)
		if err != nil {
			return nil, err
		}
		return shadowBackend(other, a, scratch)(shadow.ProductionParams(other.Backend.Kind)), nil
	}
	if r.Dataset != "" {
		a.secrets.AddURLPassword(r.LabelsURL)
	}
	return shadow.ShadowRequest(ctx, r, fs.Str("format"), a.stdout, a.stderr)
}

// shadowBackend opens parameters on the backend kind of s (shadow.Applied
// on its factory, files under scratch, the kind's messages on stderr).
func shadowBackend(s *settings, a *app, scratch string) func(map[string]any) shadow.Opener {
	return func(params map[string]any) shadow.Opener {
		return func(ctx context.Context, use func(context.Context, backend.Searcher) error) error {
			f, err := s.Factory(s.Dataset.Corpus, a.secrets)
			if err != nil {
				return inputError(err)
			}
			return shadow.Applied(f, params, scratch, a.stderr)(ctx, use)
		}
	}
}
