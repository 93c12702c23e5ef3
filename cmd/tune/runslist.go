package main

import (
	"context"
	"fmt"
	"slices"

	"github.com/fusiontune/fusiontune/runs"
)

func runRuns(ctx context.Context, a *app, args []string) error {
	fs := newFlagSet("runs", "[--runs-dir DIR] [--format text|json|md|csv]", a.stderr)
	config := fs.String("config", "", "settings file (default ./tune.yaml when present)")
	fs.String("runs-dir", defaultRunsDir, "directory of run records (setting runs_dir)")
	format := fs.String("format", "text", "text, json, md or csv")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if !slices.Contains(runs.ListFormats, *format) {
		return usageErrorf("runs: --format must be text, json, md or csv (got %q)", *format)
	}
	s, err := loadSettings(*config, fs, map[string]string{"runs-dir": "runs_dir"})
	if err != nil {
		return err
	}
	store, err := a.openStore(s.RunsDir)
	if err != nil {
		return err
	}
	a.warnUnfinished(s, store)
	list, err := store.List()
	if err != nil {
		return err
	}
	if len(list) == 0 {
		fmt.Fprintf(a.stderr, "no runs in %s\n", s.RunsDir)
		if *format != "json" {
			return nil
		}
	}
	return runs.WriteList(a.stdout, *format, runs.ListRows(list))
}
