package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

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

func runShadow(ctx context.Context, a *app, args []string) error {
	fs := newFlagSet("shadow", shadowUsage, a.stderr)
	logs := fs.String("log", "", "query logs, comma-separated (rotated files LOG.1, LOG.2 ... are read too)")
	control := fs.String("control", "log", "control: log, an engine config file, or run:RUN[:TRIAL]")
	treatment := fs.String("treatment", "", "treatment: an engine config file, run:RUN[:TRIAL], or shadow (the live shadow mode's logged answers)")
	k := fs.Int("k", 10, fmt.Sprintf("depth compared, in [1, %d]", shadow.MaxK))
	metric := fs.String("metric", "NDCG@10", "metric of the judged comparison")
	qrels := fs.String("qrels", "", "TREC qrels of the harvested query ids")
	dataset := fs.String("dataset", "", "dataset id in the label store whose labels judge the queries")
	effect := fs.Float64("effect", 0.02, "smallest metric difference the sequential test looks for, > 0")
	alpha := fs.Float64("alpha", 0.05, "sequential test's false-positive rate, in (0, 0.5]")
	beta := fs.Float64("beta", 0.2, "sequential test's false-negative rate, in (0, 0.5]")
	burnIn := fs.Int("burn-in", stats.DefaultSPRTBurnIn, fmt.Sprintf("queries seen before the sequential test may stop, in [%d, %d]", stats.MinSPRTBurnIn, stats.MaxSPRTBurnIn))
	skipBad := fs.Bool("skip-bad-lines", false, "skip (and count) malformed log lines")
	format := fs.String("format", "text", "output: text or json")
	config := fs.String("config", "", "settings file (default ./tune.yaml when present)")
	fs.String("runs-dir", "", "runs directory (setting runs_dir)")
	fs.String("labels", "", "label store URL (setting labels)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	sprt := stats.SPRTOptions{Alpha: *alpha, Beta: *beta, Effect: *effect, BurnIn: *burnIn}
	m, merr := metrics.ParseMetric(*metric)
	switch {
	case *logs == "":
		return usageErrorf("shadow: --log is required")
	case *treatment == "":
		return usageErrorf("shadow: --treatment is required")
	case *k < 1 || *k > shadow.MaxK:
		return usageErrorf("shadow: --k: want an integer in [1, %d] (got %d)", shadow.MaxK, *k)
	case merr != nil:
		return usageErrorf("shadow: --metric: %v", merr)
	case *format != "text" && *format != "json":
		return usageErrorf("shadow: --format: want text or json (got %q)", *format)
	case fs.NArg() > 0:
		return usageErrorf("shadow: unexpected arguments %q", fs.Args())
	}
	if p := sprt.Validate(); len(p) > 0 {
		return usageErrorf("shadow: --%s", p[0])
	}
	s, err := loadSettings(*config, fs, map[string]string{"runs-dir": "runs_dir", "labels": "labels"})
	if err != nil {
		return err
	}
	var files []string
	for _, l := range strings.Split(*logs, ",") {
		found := querylog.Files(l)
		if len(found) == 0 {
			return inputError(fmt.Errorf("shadow: --log %s: no such file", l))
		}
		files = append(files, found...)
	}
	log, err := querylog.Read(files, querylog.ReadOptions{SkipBad: *skipBad})
	if err != nil {
		return inputError(err)
	}
	c := shadow.Config{Log: log, Options: shadow.Options{K: *k, Metric: m, Grades: metrics.DefaultOptions(), SPRT: sprt, Seed: seedOf(s.Stats.Seed)}}
	if c.Control, err = a.shadowSide(s, *control); err != nil {
		return err
	}
	if c.Treatment, err = a.shadowSide(s, *treatment); err != nil {
		return err
	}
	if c.Judgments, err = a.shadowJudgments(ctx, s, *qrels, *dataset); err != nil {
		return err
	}
	fmt.Fprintf(a.stderr, "shadow: %d searches read from %d files (%d bad lines skipped); building both engines\n", len(log.Searches), len(files), log.Skipped)
	r, err := shadow.Shadow(ctx, c)
	if err != nil {
		return inputError(err)
	}
	if *format == "json" {
		return r.WriteJSON(a.stdout)
	}
	return r.WriteText(a.stdout, 5)
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
		a.addURLSecret(url)
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
