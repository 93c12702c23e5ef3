package main

import (
	"context"
	"flag"
	"fmt"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/fusiontune/fusiontune/runs"
)

func runLeaderboard(ctx context.Context, a *app, args []string) error {
	fs := newFlagSet("leaderboard", "[RUN] [--runs-dir DIR] [--format text|json|md|csv] [--by category|difficulty]\n       --storage URL [--study NAME] [--format ...]\n\n"+pickUsage+" RUN defaults to latest.", a.stderr)
	config := fs.String("config", "", "settings file (default ./tune.yaml when present)")
	fs.String("runs-dir", defaultRunsDir, "directory of run records (setting runs_dir)")
	format := fs.String("format", "text", "text, json, md or csv")
	storage := fs.String("storage", "", "print the combined leaderboard of a shared study in this database instead of a run's")
	study := fs.String("study", "", "the shared study's name (with --storage)")
	by := fs.String("by", "", "category or difficulty: each trial's primary score per group, one column per group")
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
	if *by != "" {
		return lb.RenderBy(a.stdout, *by, *format)
	}
	return lb.Render(a.stdout, *format)
}

func runRuns(ctx context.Context, a *app, args []string) error {
	fs := newFlagSet("runs", "[--runs-dir DIR]", a.stderr)
	config := fs.String("config", "", "settings file (default ./tune.yaml when present)")
	fs.String("runs-dir", defaultRunsDir, "directory of run records (setting runs_dir)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	s, err := loadSettings(*config, fs, map[string]string{"runs-dir": "runs_dir"})
	if err != nil {
		return err
	}
	store, err := a.openStore(s.RunsDir)
	if err != nil {
		return err
	}
	list, err := store.List()
	if err != nil {
		return err
	}
	if len(list) == 0 {
		fmt.Fprintf(a.stderr, "no runs in %s\n", s.RunsDir)
		return nil
	}
	tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "RUN\tSTATUS\tTRIALS\tEXPERIMENT\tGATES\tBEST\tBEST TRIAL")
	for _, r := range list {
		best, name := "—", "—"
		if r.LoadErr == nil {
			if lb, err := r.ReadLeaderboard(); err == nil {
				if e, ok := lb.Best(); ok {
					best, name = fmt.Sprintf("%.4f", e.Primary), e.Name
				}
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%s\t%s\n", r.ID(), r.Manifest.Status, r.Manifest.Trials, orDash(r.Manifest.ExperimentName), gateStatus(r), best, name)
	}
	return tw.Flush()
}

// gateStatus sums up a run's gates.json: "pass", "FAIL 2/5" or "—" when no
// gates were checked.
func gateStatus(r *runs.Run) string {
	if r.LoadErr != nil {
		return "—"
	}
	g, ok, err := r.ReadGates()
	switch {
	case err != nil:
		return "unreadable"
	case !ok:
		return "—"
	case g.Pass:
		return "pass"
	}
	return fmt.Sprintf("FAIL %d/%d", len(g.Failed()), len(g.Results))
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
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
	run, err := store.Resolve(ref)
	if err != nil {
		return nil, nil, nil, inputError(err)
	}
	return s, store, run, nil
}
