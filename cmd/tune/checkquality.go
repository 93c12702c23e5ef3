package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/fusiontune/fusiontune/cmd/tune/internal/cli"
	"github.com/fusiontune/fusiontune/experiments"
	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner"
)

var checkQualitySpec = cli.Spec{Name: "check-quality", Usage: usage("check-quality"), Args: cli.NoArgs, Flags: []cli.Flag{configFlag, runsDirFlag,
	cli.String("dataset-id", "", "named dataset from the settings' datasets list (setting dataset_id), or all: each dataset checked in turn, a row per dataset").Bind("dataset_id"),
	cli.String("split", "", "golden-set split to evaluate: all, dev or test (setting dataset.split; default all)").Bind("dataset.split"),
	cli.String("format", "text", "summary format on stdout: text, md (a pull-request comment) or json").OneOf(runs.QualityFormats...).AlsoAccepts("markdown"),
	cli.String("against", "", "compare with a reference: a run (id, prefix, path or latest), latest-on-branch (the newest run on --base-branch), or a baseline FILE (--export-baseline)"),
	cli.String("branch", "", "branch this run is recorded on (default: $GITHUB_HEAD_REF, $GITHUB_REF_NAME, $CI_COMMIT_REF_NAME, else git's current branch)"),
	cli.String("base-branch", "", "with --against latest-on-branch: the branch whose newest run is the reference (default: $GITHUB_BASE_REF, $CI_MERGE_REQUEST_TARGET_BRANCH_NAME, else --branch)"),
	cli.String("export-baseline", "", "also write the run's baseline (scorecard + per-query scores) to FILE, to commit beside the golden set"),
	cli.String("by", "", "also split the scorecard by a query attribute: language, category, difficulty or meta.KEY (queries, primary, Δ reference, no relevant@10, key metrics per segment)"),
	cli.String("category", "", "evaluate only the golden set's queries in this category (named in the summary)"),
	cli.String("lang", "", "evaluate only the golden set's queries in this language, or all (named in the summary)"),
	cli.Bool("verbose", false, "a line per query on stderr: id, text, rank of the first relevant result, the grades of the top 10 (- unjudged)"),
	cli.Int("failures", tuner.DefaultFailuresShown, fmt.Sprintf("failing queries listed in the summary, 0 to %d (all are in the run's quality.json)", tuner.MaxFailuresShown)).Range(0, tuner.MaxFailuresShown)}}

// runCheckQuality is `tune check-quality`.
func runCheckQuality(ctx context.Context, a *app, args []string) error {
	started := time.Now()
	fs, err := a.parse(checkQualitySpec, args)
	if err != nil {
		return err
	}
	if fs.Str("dataset-id") == runs.AllDatasets {
		return a.checkQualityAll(ctx, fs, args, started)
	}
	c, err := a.qualityConfig(fs, args, started)
	if err != nil {
		return err
	}
	if err := c.Against(fs.Str("against"), baseBranch(fs.Str("base-branch"), c.Manifest.Branch)); err != nil {
		return err
	}
	o := tuner.QualityOutput{Format: fs.Str("format"), Failures: fs.Int("failures"), ExportBaseline: fs.Str("export-baseline")}
	return tuner.CheckAndReport(ctx, *c, o, a.stdout, a.stderr)
}

// qualityConfig is the check the flags and settings ask for (without its
// reference).
func (a *app) qualityConfig(fs *cli.Parsed, args []string, started time.Time) (*tuner.QualityConfig, error) {
	s, err := a.settingsOf(fs)
	if err != nil {
		return nil, err
	}
	s.FilterCategory, s.FilterLanguage = fs.Str("category"), fs.Str("lang")
	c, err := s.QualityConfig(a.secrets, a.stderr)
	if err != nil {
		return nil, err
	}
	if c.Store, err = a.openStore(s.RunsDir); err != nil {
		return nil, err
	}
	c.Started, c.Manifest.Args, c.Manifest.Branch = started, args, currentBranch(fs.Str("branch"))
	c.Progress = &tuner.TextProgress{W: a.stderr, Terminal: cli.IsTerminal(a.stderr)}
	c.By = fs.Str("by")
	if fs.Bool("verbose") {
		c.Verbose = a.stderr
	}
	return c, nil
}

// checkQualityAll is `tune check-quality --dataset-id all`: the check of
// each dataset the settings list, one run each, then a row per dataset.
// Gates apply per dataset; a reference belongs to one dataset, so
// --against and --export-baseline are refused.
func (a *app) checkQualityAll(ctx context.Context, fs *cli.Parsed, args []string, started time.Time) error {
	for _, name := range []string{"against", "export-baseline"} {
		if fs.Str(name) != "" {
			return inputError(fmt.Errorf("--dataset-id all: --%s compares one dataset with its reference; check each dataset with --dataset-id ID instead", name))
		}
	}
	if err := fs.FlagSet.Set("dataset-id", ""); err != nil {
		return err
	}
	s, err := a.settingsOf(fs)
	if err != nil {
		return err
	}
	if len(s.Datasets) == 0 {
		return inputError(errors.New("--dataset-id all: the settings list no datasets (setting datasets)"))
	}
	all := runs.DatasetsQuality{GatesPass: true}
	for _, d := range s.Datasets {
		if err := fs.FlagSet.Set("dataset-id", d.ID); err != nil {
			return err
		}
		c, err := a.qualityConfig(fs, args, started)
		if err != nil {
			return fmt.Errorf("dataset %q: %w", d.ID, err)
		}
		if c.FailuresShown = fs.Int("failures"); c.FailuresShown == 0 {
			c.FailuresShown = -1
		}
		fmt.Fprintf(a.stderr, "dataset %s\n", d.ID)
		q, _, err := tuner.CheckQuality(ctx, *c)
		if err != nil {
			return fmt.Errorf("dataset %q: %w", d.ID, err)
		}
		if q == nil {
			return fmt.Errorf("dataset %q: the check's only trial failed", d.ID)
		}
		if all.Backend == "" {
			all.Backend, all.Metrics = q.Backend, runs.KeyMetrics(q.Metrics)
		}
		all.Datasets = append(all.Datasets, runs.DatasetRow(d.ID, experiments.Languages(c.Golden.Queries), q))
		all.GatesPass = all.GatesPass && q.GatesPass
	}
	if err := all.Render(a.stdout, fs.Str("format")); err != nil {
		return err
	}
	if !all.GatesPass {
		var failed []string
		for _, r := range all.Datasets {
			if !r.GatesPass {
				failed = append(failed, r.ID)
			}
		}
		return fmt.Errorf("gates failed on %d of %d datasets: %s", len(failed), len(all.Datasets), strings.Join(failed, ", "))
	}
	return nil
}
