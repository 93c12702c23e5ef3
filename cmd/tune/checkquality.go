package main

import (
	"context"
	"fmt"
	"time"

	"github.com/fusiontune/fusiontune/cmd/tune/internal/cli"
	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner"
)

var checkQualitySpec = cli.Spec{Name: "check-quality", Usage: usage("check-quality"), Args: cli.NoArgs, Flags: []cli.Flag{configFlag, runsDirFlag, datasetIDFlag,
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
	s, err := a.settingsOf(fs)
	if err != nil {
		return err
	}
	s.FilterCategory, s.FilterLanguage = fs.Str("category"), fs.Str("lang")
	c, err := s.QualityConfig(a.secrets, a.stderr)
	if err != nil {
		return err
	}
	if c.Store, err = a.openStore(s.RunsDir); err != nil {
		return err
	}
	c.Started, c.Manifest.Args, c.Manifest.Branch = started, args, currentBranch(fs.Str("branch"))
	c.Progress = &tuner.TextProgress{W: a.stderr, Terminal: cli.IsTerminal(a.stderr)}
	if err := c.Against(fs.Str("against"), baseBranch(fs.Str("base-branch"), c.Manifest.Branch)); err != nil {
		return err
	}
	c.By = fs.Str("by")
	if fs.Bool("verbose") {
		c.Verbose = a.stderr
	}
	o := tuner.QualityOutput{Format: fs.Str("format"), Failures: fs.Int("failures"), ExportBaseline: fs.Str("export-baseline")}
	return tuner.CheckAndReport(ctx, *c, o, a.stdout, a.stderr)
}
