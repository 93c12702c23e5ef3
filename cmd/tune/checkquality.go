package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/fusiontune/fusiontune/internal/atomicfile"

	"github.com/fusiontune/fusiontune/internal/cli"

	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner"
)

const checkQualityUsage = `[--config tune.yaml] [--runs-dir DIR] [--format text|md|json] [--against RUN|latest-on-branch|FILE]
       [--branch NAME] [--base-branch NAME] [--export-baseline FILE] [--failures N]

Evaluates the configured backend once, as it is: no parameter applied, no
config written, nothing restarted by the check (an http backend without
config/template/restart is only searched). Records a run like any other
(tune compare, report and ui work on it), prints the scorecard overall and
per category and difficulty, routing accuracy, the gates, the comparison
with --against and the failing queries, and exits 1 when a gate fails.`

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
	format, shown, export := fs.Str("format"), fs.Int("failures"), fs.Str("export-baseline")
	if err := checkQualityFlags(fs); err != nil {
		return err
	}
	s, err := settingsOf(fs)
	if err != nil {
		return err
	}
	if !s.SplitGiven {
		s.Dataset.Split = "all" // a check scores every query; nothing is selected
		s.SplitGiven = true
	}
	if err := inputError(s.CheckInputs()); err != nil {
		return err
	}
	c, ds, err := a.qualityConfig(s)
	if err != nil {
		return err
	}
	store, err := a.openStore(s.RunsDir)
	if err != nil {
		return err
	}
	c.Store, c.Started, c.Manifest.Args = store, started, args
	c.Manifest.Branch = tuner.CurrentBranch(fs.Str("branch"))
	if ref := fs.Str("against"); ref != "" {
		if c.Reference, err = tuner.ResolveReference(store, ref, tuner.BaseBranch(fs.Str("base-branch"), c.Manifest.Branch)); err != nil {
			return inputError(err)
		}
	}
	c.Golden, c.FailuresShown, c.Corpus = ds.Golden, shown, ds.Corpus
	if shown == 0 {
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
	if err := q.Render(a.stdout, format); err != nil {
		return err
	}
	if runErr != nil {
		return runError(runErr)
	}
	return a.exportAndGate(q, out, export)
}

// exportAndGate writes the run's baseline to export (when given) and
// fails (exit 1) when a gate failed.
func (a *app) exportAndGate(q *runs.Quality, out *tuner.Outcome, export string) error {
	if export != "" {
		data, err := os.ReadFile(filepath.Join(out.Run.Dir, runs.BaselineFile))
		if err == nil {
			err = atomicfile.Write(export, data, 0o644)
		}
		if err != nil {
			return fmt.Errorf("--export-baseline: %w", err)
		}
		fmt.Fprintf(a.stderr, "baseline written to %s\n", export)
	}
	if !q.GatesPass {
		var failed []string
		for _, g := range q.Gates {
			if !g.Pass {
				failed = append(failed, g.Gate)
			}
		}
		return failedError(fmt.Errorf("%d of %d gates failed: %s", len(failed), len(q.Gates), strings.Join(failed, ", ")))
	}
	return nil
}

// checkQualityFlags checks check-quality's arguments and ranges.
func checkQualityFlags(fs *cli.Parsed) error {
	if fs.NArg() > 0 {
		return usageErrorf("check-quality: unexpected argument %q", fs.Arg(0))
	}
	return nil
}

// qualityConfig reads and checks what a quality check needs, before any
// run directory exists: the golden set, the scorer, the backend
// (Settings.RunConfig of the as-is experiment file).
func (a *app) qualityConfig(s *settings) (*tuner.QualityConfig, *tuner.Dataset, error) {
	ef, err := tuner.AsIsExperiments()
	if err != nil {
		return nil, nil, err
	}
	c, ds, err := s.RunConfig(ef, "tune check-quality", a.secrets, a.stderr)
	if err != nil {
		return nil, nil, runError(err)
	}
	c.Progress, c.Log = &tuner.TextProgress{W: a.stderr, Terminal: cli.IsTerminal(a.stderr)}, a.stderr
	return &tuner.QualityConfig{Config: *c}, ds, nil
}
