package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/fusiontune/fusiontune/cmd/tune/internal/cli"
	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner/promote"
)

var applySpec = cli.Spec{Name: "apply", Usage: "RUN [TRIAL] [--config tune.yaml] [--runs-dir DIR]\n\n" + pickUsage + "\n\nWrites TRIAL's exact engine config to the production config (backend.config,\ncreated when missing), after a backup; restarts the service on it, checks health and re-evaluates a\nsample of queries; on any failure the previous config is restored.",
	Args: runAndTrial, Flags: []cli.Flag{configFlag, runsDirFlag, cli.Bool("force", false, "promote even when the promotion policy refuses (recorded in promotions.jsonl)"),
		cli.Bool("allow-outside-runs", false, "promote from a run directory outside the runs directory (runs_dir)")}}

func runApply(ctx context.Context, a *app, args []string) error {
	p, s, store, run, err := a.parseRun(applySpec, args)
	if err != nil {
		return err
	}
	if !store.Contains(run) && !p.Bool("allow-outside-runs") {
		return inputError(fmt.Errorf("apply: run %s is outside the runs directory %s: promotions come from runs_dir (its lock guards them); move the run there, set --runs-dir, or pass --allow-outside-runs", run.Dir, store.Dir))
	}
	unlock, err := store.LockFor(s.Backend.Config, append([]string{"apply"}, args...), a.stderr)
	defer unlock()
	if err != nil {
		return err
	}
	entry, err := runs.TrialOf(run, p.Arg(1))
	if err != nil {
		return inputError(err)
	}
	return a.promote(ctx, s, store, run, entry, p.Bool("force"))
}

// promote installs a recorded trial's config as the production config
// (see promote.Trial).
func (a *app) promote(ctx context.Context, s *settings, store *runs.Store, run *runs.Run, entry runs.Entry, force bool) error {
	c := s.PromoteConfig(run, a.secrets, a.stderr)
	c.Store, c.Entry, c.Force = store, entry, force
	p, err := promote.Trial(ctx, c)
	if err != nil {
		return err
	}
	p.WriteText(a.stdout, a.stderr)
	return nil
}

var rollbackSpec = cli.Spec{Name: "rollback", Usage: "[--config tune.yaml] [--runs-dir DIR]\n\nRestores the production config that the last promotion replaced, restarts the\nservice on it and checks its health.",
	Args: cli.NoArgs, Flags: []cli.Flag{configFlag, runsDirFlag}}

func runRollback(ctx context.Context, a *app, args []string) error {
	fs, err := a.parse(rollbackSpec, args)
	if err != nil {
		return err
	}
	s, err := a.settingsOf(fs)
	if err != nil {
		return err
	}
	if s.Backend.Config == "" {
		return errNoProduction
	}
	store, err := a.openStore(s.RunsDir)
	if err != nil {
		return err
	}
	unlock, err := store.LockFor(s.Backend.Config, append([]string{"rollback"}, args...), a.stderr)
	defer unlock()
	if err != nil {
		return err
	}
	p, err := promote.Rollback(ctx, s.Backend.Config, store, s.ProductionVerifier(a.secrets, a.stderr))
	if errors.Is(err, promote.ErrNothingToRollBack) {
		return inputError(err)
	}
	if err != nil {
		return err
	}
	promote.WriteRollback(a.stdout, a.stderr, p)
	return nil
}

// errNoProduction refuses a command that changes the production config
// when the settings name none.
var errNoProduction = inputError(errors.New("backend.config: set it to the production engine config file"))
