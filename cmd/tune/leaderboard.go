package main

import (
	"context"
	"flag"
	"slices"
	"strings"

	"github.com/fusiontune/fusiontune/runs"
)

func runLeaderboard(ctx context.Context, a *app, args []string) error {
	fs := newFlagSet("leaderboard", "[RUN] [--runs-dir DIR] [--format text|json|md|csv] [--by category|difficulty] [--judged-only] [--pareto]\n       --storage URL [--study NAME] [--format ...]\n\n"+pickUsage+" RUN defaults to latest.", a.stderr)
	config := fs.String("config", "", "settings file (default ./tune.yaml when present)")
	fs.String("runs-dir", defaultRunsDir, "directory of run records (setting runs_dir)")
	format := fs.String("format", "text", "text, json, md or csv")
	storage := fs.String("storage", "", "print the combined leaderboard of a shared study in this database instead of a run's")
	study := fs.String("study", "", "the shared study's name (with --storage)")
	by := fs.String("by", "", "category or difficulty: each trial's primary score per group, one column per group")
	judgedOnly := fs.Bool("judged-only", false, "add the judged-only (condensed-list, trec_eval -J) columns NDCG@10_J, ...")
	pareto := fs.Bool("pareto", false, "quality × p95 latency of the measured trials and their Pareto front (from latency.json)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *by != "" && !slices.Contains(runs.Groupings, *by) {
		return usageErrorf("--by: want %s (got %q)", strings.Join(runs.Groupings, " or "), *by)
	}
	if *storage != "" || *study != "" {
		if *by != "" {
			return usageErrorf("--by: not for a shared study's leaderboard")
		}
		if *storage == "" || fs.NArg() > 0 {
			return usageErrorf("--study needs --storage, and a shared study's leaderboard takes no RUN")
		}
		if !validFormat(*format) {
			return usageErrorf("--format: want text, json, md or csv (got %q)", *format)
		}
		return a.runSharedLeaderboard(ctx, *storage, *study, *format)
	}
	if fs.NArg() > 1 {
		return usageErrorf("want at most one RUN (got %d arguments)", fs.NArg())
	}
	if !validFormat(*format) {
		return usageErrorf("--format: want text, json, md or csv (got %q)", *format)
	}
	_, _, run, err := a.openRun(*config, fs, fs.Arg(0))
	if err != nil {
		return err
	}
	lb, err := run.ReadLeaderboard()
	if err != nil {
		return err
	}
	if *pareto {
		return a.printPareto(run, lb, *format)
	}
	if *by != "" {
		return lb.RenderBy(a.stdout, *by, *format)
	}
	lb.ShowJudgedOnly = *judgedOnly
	return lb.Render(a.stdout, *format)
}

// openRun loads the settings (runs-dir flag bound) and resolves the run ref
// ("" or latest, an id or a unique prefix) in the runs directory.
func (a *app) openRun(config string, fs *flag.FlagSet, ref string) (*settings, *runs.Store, *runs.Run, error) {
	s, err := loadSettings(config, fs, map[string]string{"runs-dir": "runs_dir"})
	if err != nil {
		return nil, nil, nil, err
	}
	store, err := a.openStore(s.RunsDir)
	if err != nil {
		return nil, nil, nil, err
	}
	a.warnUnfinished(s, store)
	run, err := store.Resolve(ref)
	if err != nil {
		return nil, nil, nil, inputError(err)
	}
	return s, store, run, nil
}
