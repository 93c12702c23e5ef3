package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/fusiontune/fusiontune/internal/cli"
	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner"
	"github.com/fusiontune/fusiontune/tuner/promote"
)

var applySpec = cli.Spec{Name: "apply", Usage: "RUN [TRIAL] [--config tune.yaml] [--runs-dir DIR]\n\n" + pickUsage + "\n\nWrites TRIAL's exact engine config to the production config (backend.config,\ncreated when missing), after a backup; restarts the service on it, checks health and re-evaluates a\nsample of queries; on any failure the previous config is restored.",
	Flags: []cli.Flag{configFlag, runsDirFlag, cli.Bool("force", false, "promote even when the promotion policy refuses (recorded in promotions.jsonl)")}}

func runApply(ctx context.Context, a *app, args []string) error {
	p, err := a.parse(applySpec, args)
	if err != nil {
		return err
	}
	if p.NArg() < 1 || p.NArg() > 2 {
		return usageErrorf("want RUN and optionally TRIAL (got %d arguments)", p.NArg())
	}
	s, store, run, err := a.openRun(p, p.Arg(0))
	if err != nil {
		return err
	}
	unlock, err := store.LockFor(s.Backend.Config, append([]string{"apply"}, args...), a.stderr)
	defer unlock()
	if err != nil {
		return err
	}
	entry, err := tuner.TrialOf(run, p.Arg(1))
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
		return runError(err)
	}
	if !p.Existed {
		fmt.Fprintf(a.stderr, "created production config %s\n", p.Config)
	}
	fmt.Fprintf(a.stdout, "promoted %s (run %s, primary %.4f) to %s; backup %s\n", p.Trial, p.Run, p.Primary, p.Config, orNone(p.Backup))
	return nil
}

var rollbackSpec = cli.Spec{Name: "rollback", Usage: "[--config tune.yaml] [--runs-dir DIR]\n\nRestores the production config that the last promotion replaced, restarts the\nservice on it and checks its health.",
	Flags: []cli.Flag{configFlag, runsDirFlag}}

func runRollback(ctx context.Context, a *app, args []string) error {
	fl, err := a.parse(rollbackSpec, args)
	if err != nil {
		return err
	}
	if fl.NArg() > 0 {
		return usageErrorf("unexpected argument %q", fl.Arg(0))
	}
	s, err := settingsOf(fl)
	if err != nil {
		return err
	}
	if s.Backend.Config == "" {
		return inputError(errors.New("backend.config: set it to the production engine config file"))
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
		return runError(err)
	}
	summary, interrupted := promote.RollbackSummary(p)
	if interrupted {
		fmt.Fprintf(a.stderr, "tune: %s\n", p.Error)
	}
	fmt.Fprintln(a.stdout, summary)
	return nil
}

func orNone(s string) string {
	if s == "" {
		return "(none: the file was new)"
	}
	return s
}
