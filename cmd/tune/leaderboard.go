package main

import (
	"context"
	"fmt"
	"slices"

	"github.com/fusiontune/fusiontune/cmd/tune/internal/cli"
	"github.com/fusiontune/fusiontune/experiments"
	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner"
	"github.com/fusiontune/fusiontune/tuner/verdict"
)

var leaderboardSpec = cli.Spec{Name: "leaderboard", Usage: "[RUN] [--runs-dir DIR] [--format text|json|md|csv] [--top N] [--columns N | --wide] [--by language|category|difficulty|meta.KEY] [--judged-only] [--pareto]\n       --storage URL [--study NAME] [--format ...]\n\n" + pickUsage + " RUN defaults to latest.",
	Args: atMostOneRun, Flags: []cli.Flag{configFlag, runsDirFlag, cli.String("format", "text", "text, json, md or csv").OneOf(runs.Formats...).AlsoAccepts("markdown"),
		cli.String("storage", "", "print the combined leaderboard of a shared study in this database instead of a run's"),
		cli.String("study", "", "the shared study's name (with --storage)"),
		cli.String("by", "", "language, category, difficulty or meta.KEY: each trial's primary score per segment, one column per segment (language and meta.KEY from the per-query results and the run's golden-set snapshot)"),
		cli.Bool("judged-only", false, "add the judged-only (condensed-list, trec_eval -J) columns NDCG@10_J, ..."),
		cli.Bool("pareto", false, "quality × p95 latency of the measured trials and their Pareto front (from latency.json)"),
		cli.Int("top", 0, "show the N best trials (and the baseline) in the text and Markdown tables; 0: all").Min(0),
		cli.Int("columns", runs.DefaultWidth, fmt.Sprintf("widest line of the text table, %d to %d: columns are left out, then trial labels cut, to fit", runs.MinWidth, runs.MaxWidth)).Range(runs.MinWidth, runs.MaxWidth),
		cli.Bool("wide", false, "no width limit on the text table: every column, whole labels")}}

func runLeaderboard(ctx context.Context, a *app, args []string) error {
	fs, err := a.parse(leaderboardSpec, args)
	if err != nil {
		return err
	}
	format, storage, study, by := fs.Str("format"), fs.Str("storage"), fs.Str("study"), fs.Str("by")
	width, top, err := tableLayout(fs, format, by != "" || fs.Bool("pareto"))
	if err != nil {
		return err
	}
	if storage != "" || study != "" {
		if by != "" {
			return usageErrorf("--by: not for a shared study's leaderboard")
		}
		if storage == "" || fs.NArg() > 0 {
			return usageErrorf("--study needs --storage, and a shared study's leaderboard takes no RUN")
		}
		lb, err := tuner.SharedLeaderboardAt(ctx, storage, study)
		if err != nil {
			return err
		}
		v := verdict.Decide(lb)
		lb.Verdict = &v
		lb.Width, lb.Top = width, top
		return lb.Render(a.stdout, format)
	}
	if by != "" {
		if err := experiments.CheckSegmentation(by); err != nil {
			return usageErrorf("--by: %v", err)
		}
	}
	_, _, run, err := a.openRun(fs, fs.Arg(0))
	if err != nil {
		return err
	}
	if by != "" && !slices.Contains(runs.Groupings, by) {
		t, lb, err := tuner.SegmentBoard(run, by)
		if err != nil {
			return err
		}
		return t.Render(a.stdout, format, lb.Labels())
	}
	return runs.RenderView(a.stdout, run, runs.View{By: by, JudgedOnly: fs.Bool("judged-only"), Pareto: fs.Bool("pareto"), Decide: verdict.Decide, Width: width, Top: top}, format)
}

// tableLayout reads --top, --columns and --wide: the leaderboard's width
// (-1 for --wide) and top. They shape the leaderboard's text table (--top
// its Markdown table too), so another format, a grouping or the Pareto
// view (other tables) refuses them, as does --wide with --columns.
func tableLayout(fs *cli.Parsed, format string, otherView bool) (width, top int, err error) {
	width, top = fs.Int("columns"), fs.Int("top")
	given := func(names ...string) string {
		for _, n := range names {
			if fs.Given(n) {
				return "--" + n
			}
		}
		return ""
	}
	text := format == "text" || format == "table" || format == ""
	switch {
	case fs.Bool("wide") && fs.Given("columns"):
		return 0, 0, usageErrorf("--wide and --columns: give one (--wide: no limit)")
	case otherView && given("top", "columns", "wide") != "":
		return 0, 0, usageErrorf("%s: for the leaderboard itself, not with --by or --pareto", given("top", "columns", "wide"))
	case !text && given("columns", "wide") != "":
		return 0, 0, usageErrorf("%s: only for --format text (got %q)", given("columns", "wide"), format)
	case !text && format != "md" && format != "markdown" && fs.Given("top"):
		return 0, 0, usageErrorf("--top: only for --format text or md (got %q): json and csv carry every trial", format)
	}
	if fs.Bool("wide") {
		width = -1
	}
	return width, top, nil
}

// parseRun parses args with spec and opens the run its first argument
// names (see openRun).
func (a *app) parseRun(spec cli.Spec, args []string) (*cli.Parsed, *settings, *runs.Store, *runs.Run, error) {
	p, err := a.parse(spec, args)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	s, store, run, err := a.openRun(p, p.Arg(0))
	return p, s, store, run, err
}

// openRun loads the settings (runs-dir flag bound) and resolves the run ref
// ("" or latest, an id or a unique prefix) in the runs directory.
func (a *app) openRun(p *cli.Parsed, ref string) (*settings, *runs.Store, *runs.Run, error) {
	s, store, err := a.openSettingsStore(p)
	if err != nil {
		return nil, nil, nil, err
	}
	run, err := store.Resolve(ref)
	if err != nil {
		return nil, nil, nil, inputError(err)
	}
	return s, store, run, nil
}

// openSettingsStore loads the settings and opens their runs directory,
// warning of an interrupted promotion.
func (a *app) openSettingsStore(p *cli.Parsed) (*settings, *runs.Store, error) {
	s, err := a.settingsOf(p)
	if err != nil {
		return nil, nil, err
	}
	store, err := a.openStore(s.RunsDir)
	if err != nil {
		return nil, nil, err
	}
	a.warnUnfinished(s, store)
	return s, store, nil
}
