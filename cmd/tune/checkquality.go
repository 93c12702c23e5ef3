package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/fusiontune/fusiontune/internal/cli"

	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner"
)

var checkQualityUsage = usage("check-quality")

// maxFailuresShown bounds --failures.
const maxFailuresShown = 1000

var checkQualitySpec = cli.Spec{Name: "check-quality", Usage: checkQualityUsage, Flags: []cli.Flag{configFlag, runsDirFlag, datasetIDFlag,
	cli.String("split", "", "golden-set split to evaluate: all, dev or test (setting dataset.split; default all)").Bind("dataset.split"),
	cli.String("format", "text", "summary format on stdout: text, md (a pull-request comment) or json").OneOf(runs.QualityFormats...).AlsoAccepts("markdown"),
	cli.String("against", "", "compare with a reference: a run (id, prefix, path or latest), latest-on-branch (the newest run on --base-branch), or a baseline FILE (--export-baseline)"),
	cli.String("branch", "", "branch this run is recorded on (default: $GITHUB_HEAD_REF, $GITHUB_REF_NAME, $CI_COMMIT_REF_NAME, else git's current branch)"),
	cli.String("base-branch", "", "with --against latest-on-branch: the branch whose newest run is the reference (default: $GITHUB_BASE_REF, $CI_MERGE_REQUEST_TARGET_BRANCH_NAME, else --branch)"),
	cli.String("export-baseline", "", "also write the run's baseline (scorecard + per-query scores) to FILE, to commit beside the golden set"),
	cli.Int("failures", tuner.DefaultFailuresShown, fmt.Sprintf("failing queries listed in the summary, 0 to %d (all are in the run's quality.json)", maxFailuresShown)).Range(0, maxFailuresShown)}}

// runCheckQuality is `tune check-quality`.
func runCheckQuality(ctx context.Context, a *app, args []string) error {
	started := time.Now()
	fs, err := a.parse(checkQualitySpec, args)
	if err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageErrorf("check-quality: unexpected argument %q", fs.Arg(0))
	}
	s, err := settingsOf(fs)
	if err != nil {
		return err
	}
	c, err := s.QualityConfig(a.secrets, a.stderr)
	if err != nil {
		return runError(err)
	}
	if c.Store, err = a.openStore(s.RunsDir); err != nil {
		return err
	}
	c.Started, c.Manifest.Args, c.Manifest.Branch = started, args, tuner.CurrentBranch(fs.Str("branch"))
	c.Progress = &tuner.TextProgress{W: a.stderr, Terminal: cli.IsTerminal(a.stderr)}
	if err := c.Against(fs.Str("against"), fs.Str("base-branch")); err != nil {
		return runError(err)
	}
	shown := fs.Int("failures")
	if c.FailuresShown = shown; shown == 0 {
		c.FailuresShown = -1
	}
	q, out, runErr := tuner.CheckQuality(ctx, *c)
	if q == nil {
		if out == nil || runErr != nil {
			return runError(runErr)
		}
		return failedError(errors.New("the check's only trial failed"))
	}
	if shown == 0 {
		q.Failures = nil
	}
	if err := q.Render(a.stdout, fs.Str("format")); err != nil {
		return err
	}
	if runErr != nil {
		return runError(runErr)
	}
	if export := fs.Str("export-baseline"); export != "" {
		if err := tuner.ExportBaseline(out.Run, export); err != nil {
			return err
		}
		fmt.Fprintf(a.stderr, "baseline written to %s\n", export)
	}
	return failedError(tuner.GatesFailed(q))
}
