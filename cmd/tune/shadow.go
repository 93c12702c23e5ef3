package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/fusiontune/fusiontune/internal/cli"

	"github.com/fusiontune/fusiontune/experiments/labels"
	"github.com/fusiontune/fusiontune/internal/querylog"
	"github.com/fusiontune/fusiontune/internal/trec"
	"github.com/fusiontune/fusiontune/metrics"
	"github.com/fusiontune/fusiontune/metrics/stats"
	"github.com/fusiontune/fusiontune/tuner/shadow"
)

const shadowUsage = `--log LOG[,LOG...] --control log|ENGINE.yaml|run:RUN[:TRIAL] --treatment ENGINE.yaml|run:RUN[:TRIAL]|shadow [--k 10]

Replays the distinct logged queries (in the order first searched) against
two configurations of the embedded engine and diffs the answers: identical,
minor (same documents, order changed), major (documents changed), Kendall
tau, Jaccard@k, top-1 changed and each side's latency. The control may be
the log itself (what was served); the treatment may be the answers tune
serve's live shadow mode logged (shadow: {config, percent}). Where the queries are judged (--qrels, or
the label store's labels of --dataset), the per-query metric deltas are
tested sequentially (SPRT: --effect, --alpha, --beta) with the fixed-sample
bootstrap interval beside it.`

var shadowSpec = cli.Spec{Name: "shadow", Usage: shadowUsage, Flags: []cli.Flag{configFlag, runsDirFlag, labelsFlag,
	cli.String("log", "", "query logs, comma-separated (rotated files LOG.1, LOG.2 ... are read too)"),
	cli.String("control", "log", "control: log, an engine config file, or run:RUN[:TRIAL]"),
	cli.String("treatment", "", "treatment: an engine config file, run:RUN[:TRIAL], or shadow (the live shadow mode's logged answers)"),
	cli.Int("k", 10, fmt.Sprintf("depth compared, in [1, %d]", shadow.MaxK)),
	cli.String("metric", "NDCG@10", "metric of the judged comparison"),
	cli.String("qrels", "", "TREC qrels of the harvested query ids"),
	cli.String("dataset", "", "dataset id in the label store whose labels judge the queries"),
	cli.Float("effect", 0.02, "smallest metric difference the sequential test looks for, > 0"),
	cli.Float("alpha", 0.05, "sequential test's false-positive rate, in (0, 0.5]"),
	cli.Float("beta", 0.2, "sequential test's false-negative rate, in (0, 0.5]"),
	cli.Int("burn-in", stats.DefaultSPRTBurnIn, fmt.Sprintf("queries seen before the sequential test may stop, in [%d, %d]", stats.MinSPRTBurnIn, stats.MaxSPRTBurnIn)),
	cli.Bool("skip-bad-lines", false, "skip (and count) malformed log lines"),
	cli.String("format", "text", "output: text or json")}}

func runShadow(ctx context.Context, a *app, args []string) error {
	fs, err := a.parse(shadowSpec, args)
	if err != nil {
		return err
	}
	c, err := a.shadowConfig(ctx, fs)
	if err != nil {
		return err
	}
	fmt.Fprintf(a.stderr, "shadow: %d searches read (%d bad lines skipped); answering %s and %s\n", len(c.Log.Searches), c.Log.Skipped, c.Control.Name, c.Treatment.Name)
	r, err := shadow.Shadow(ctx, c)
	if err != nil {
		return inputError(err)
	}
	if fs.Str("format") == "json" {
		return r.WriteJSON(a.stdout)
	}
	return r.WriteText(a.stdout, 5)
}

// shadowConfig checks the flags and reads the log, both sides and the
// judgments.
func (a *app) shadowConfig(ctx context.Context, fs *cli.Parsed) (shadow.Config, error) {
	var c shadow.Config
	sprt := stats.SPRTOptions{Alpha: fs.Float("alpha"), Beta: fs.Float("beta"), Effect: fs.Float("effect"), BurnIn: fs.Int("burn-in")}
	m, merr := metrics.ParseMetric(fs.Str("metric"))
	k, format := fs.Int("k"), fs.Str("format")
	switch {
	case fs.Str("log") == "":
		return c, usageErrorf("shadow: --log is required")
	case fs.Str("treatment") == "":
		return c, usageErrorf("shadow: --treatment is required")
	case k < 1 || k > shadow.MaxK:
		return c, usageErrorf("shadow: --k: want an integer in [1, %d] (got %d)", shadow.MaxK, k)
	case merr != nil:
		return c, usageErrorf("shadow: --metric: %v", merr)
	case format != "text" && format != "json":
		return c, usageErrorf("shadow: --format: want text or json (got %q)", format)
	case fs.NArg() > 0:
		return c, usageErrorf("shadow: unexpected arguments %q", fs.Args())
	}
	if p := sprt.Validate(); len(p) > 0 {
		return c, usageErrorf("shadow: --%s", p[0])
	}
	s, err := settingsOf(fs)
	if err != nil {
		return c, err
	}
	var files []string
	for _, l := range strings.Split(fs.Str("log"), ",") {
		found := querylog.Files(l)
		if len(found) == 0 {
			return c, inputError(fmt.Errorf("shadow: --log %s: no such file", l))
		}
		files = append(files, found...)
	}
	if c.Log, err = querylog.Read(files, querylog.ReadOptions{SkipBad: fs.Bool("skip-bad-lines")}); err != nil {
		return c, inputError(err)
	}
	c.Options = shadow.Options{K: k, Metric: m, Grades: metrics.DefaultOptions(), SPRT: sprt, Seed: seedOf(s.Stats.Seed)}
	if c.Control, err = a.shadowSide(s, fs.Str("control")); err != nil {
		return c, err
	}
	if c.Treatment, err = a.shadowSide(s, fs.Str("treatment")); err != nil {
		return c, err
	}
	c.Judgments, err = a.shadowJudgments(ctx, s, fs.Str("qrels"), fs.Str("dataset"))
	return c, err
}

// shadowSide resolves a --control or --treatment value.
func (a *app) shadowSide(s *settings, ref string) (shadow.Side, error) {
	switch ref {
	case "log":
		return shadow.Side{Name: "log", Log: true}, nil
	case "shadow":
		return shadow.Side{Name: "shadow (logged live)", Shadow: true}, nil
	}
	if rest, ok := strings.CutPrefix(ref, "run:"); ok {
		runRef, trialRef, _ := strings.Cut(rest, ":")
		store, err := a.openStore(s.RunsDir)
		if err != nil {
			return shadow.Side{}, err
		}
		run, err := store.Resolve(runRef)
		if err != nil {
			return shadow.Side{}, inputError(fmt.Errorf("shadow: %s: %w", ref, err))
		}
		lb, err := run.ReadLeaderboard()
		if err != nil {
			return shadow.Side{}, inputError(fmt.Errorf("shadow: %s: %w", ref, err))
		}
		e, err := lb.Pick(trialRef)
		if err != nil {
			return shadow.Side{}, inputError(fmt.Errorf("shadow: %s: %w", ref, err))
		}
		rec, err := run.Trial(e.Index)
		if err != nil {
			return shadow.Side{}, err
		}
		return shadow.Side{Name: run.ID() + ":" + e.Name, Config: []byte(rec.BackendConfig), File: ref + " (its recorded engine config)", BaseDir: run.Dir}, nil
	}
	data, err := os.ReadFile(ref)
	if err != nil {
		return shadow.Side{}, inputError(fmt.Errorf("shadow: %w (want log, an engine config file or run:RUN[:TRIAL])", err))
	}
	abs, _ := filepath.Abs(ref)
	return shadow.Side{Name: ref, Config: data, File: ref, BaseDir: filepath.Dir(abs)}, nil
}

// shadowJudgments reads the judgments of the harvested queries: a qrels
// file, or the label store's effective labels of a dataset.
func (a *app) shadowJudgments(ctx context.Context, s *settings, qrels, dataset string) (map[string]map[string]int, error) {
	switch {
	case qrels != "" && dataset != "":
		return nil, usageErrorf("shadow: give --qrels or --dataset, not both")
	case qrels != "":
		q, err := trec.ReadQrelsFile(qrels)
		if err != nil {
			return nil, inputError(fmt.Errorf("shadow: --qrels: %w", err))
		}
		return q, nil
	case dataset != "":
		url := s.LabelsURL()
		a.secrets.AddURLPassword(url)
		st, err := labels.Open(ctx, url)
		if err != nil {
			return nil, inputError(fmt.Errorf("shadow: labels: %w", err))
		}
		defer st.Close()
		ls, err := st.Latest(ctx, dataset)
		if err != nil {
			return nil, err
		}
		j, _ := labels.Effective(nil, ls)
		return j, nil
	}
	return nil, nil
}

// seedOf is the stats seed, 0 when unset.
func seedOf(p *int64) int64 {
	if p == nil {
		return 0
	}
	return *p
}
