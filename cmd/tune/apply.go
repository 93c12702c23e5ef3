package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner"
)

// smokeQueries is how many golden-set queries a promotion re-evaluates.
const smokeQueries = 20

func runApply(ctx context.Context, a *app, args []string) error {
	fs := newFlagSet("apply", "RUN TRIAL [--config tune.yaml] [--runs-dir DIR]\n\nWrites TRIAL's exact engine config to the production config (backend.config),\nafter a backup; restarts the service on it, checks health and re-evaluates a\nsample of queries; on any failure the previous config is restored.", a.stderr)
	config := fs.String("config", "", "settings file (default ./tune.yaml when present)")
	fs.String("runs-dir", defaultRunsDir, "directory of run records (setting runs_dir)")
	force := fs.Bool("force", false, "promote even when the promotion policy refuses (recorded in promotions.jsonl)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 2 {
		return usageErrorf("want RUN and TRIAL (got %d arguments)", fs.NArg())
	}
	s, store, run, err := a.openRun(*config, fs, fs.Arg(0))
	if err != nil {
		return err
	}
	unlock, err := a.lockRun(store, s.Backend.Config, append([]string{"apply"}, args...))
	defer unlock()
	if err != nil {
		return err
	}
	lb, err := run.ReadLeaderboard()
	if err != nil {
		return err
	}
	entry, err := lb.Find(fs.Arg(1))
	if err != nil {
		return inputError(err)
	}
	return a.promote(ctx, s, store, run, entry, *force)
}

// promote installs a recorded trial's config as the production config.
func (a *app) promote(ctx context.Context, s *settings, store *runs.Store, run *runs.Run, entry runs.Entry, force bool) error {
	if entry.Status != runs.StatusOK {
		return inputError(fmt.Errorf("trial %q did not succeed (%s): nothing to promote", entry.Name, entry.Status))
	}
	if s.Backend.Config == "" {
		return inputError(errors.New("backend.config: set it to the production engine config file to promote into"))
	}
	trials, err := run.Trials()
	if err != nil {
		return err
	}
	var rec *runs.TrialRecord
	for i := range trials {
		if trials[i].Index == entry.Index {
			rec = &trials[i]
		}
	}
	if rec == nil || rec.BackendConfig == "" {
		return fmt.Errorf("run %s: trial %q has no recorded backend config", run.ID(), entry.Name)
	}
	forced, reason, err := a.checkPolicy(s, run, entry, force)
	if err != nil {
		return err
	}
	ds, err := openDataset(s)
	if err != nil {
		return err
	}
	scorer, err := newScorer(s.Score)
	if err != nil {
		return inputError(err)
	}
	recorded := map[string]float64{}
	results, err := tuner.NewResults(run).Get(rec.Index)
	if err != nil {
		return err
	}
	for _, r := range results {
		recorded[r.QueryID] = r.Primary
	}
	sample := sampleQueries(ds.Queries, smokeQueries)
	pr, cleanup, err := a.newPromoter(s, store, func(ctx context.Context, b backend.Searcher) error {
		return tuner.SmokeCheck(ctx, b, sample, recorded, scorer, evalOptions(s.Eval))
	})
	if err != nil {
		return err
	}
	defer cleanup()
	p, err := pr.Promote(ctx, []byte(rec.BackendConfig), tuner.Promotion{Run: run.ID(), Trial: rec.Name, Params: rec.Params, Forced: forced, Reason: reason})
	if err != nil {
		return failedError(err)
	}
	fmt.Fprintf(a.stdout, "promoted %s (run %s, primary %.4f) to %s; backup %s\n", rec.Name, run.ID(), rec.Primary, p.Config, orNone(p.Backup))
	return nil
}

func runRollback(ctx context.Context, a *app, args []string) error {
	fs := newFlagSet("rollback", "[--config tune.yaml] [--runs-dir DIR]\n\nRestores the production config that the last promotion replaced, restarts the\nservice on it and checks its health.", a.stderr)
	config := fs.String("config", "", "settings file (default ./tune.yaml when present)")
	fs.String("runs-dir", defaultRunsDir, "directory of run records (setting runs_dir)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageErrorf("unexpected argument %q", fs.Arg(0))
	}
	s, err := loadSettings(*config, fs, map[string]string{"runs-dir": "runs_dir"})
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
	unlock, err := a.lockRun(store, s.Backend.Config, append([]string{"rollback"}, args...))
	defer unlock()
	if err != nil {
		return err
	}
	pr, cleanup, err := a.newPromoter(s, store, func(ctx context.Context, b backend.Searcher) error { return nil })
	if err != nil {
		return err
	}
	defer cleanup()
	p, err := pr.Rollback(ctx)
	if errors.Is(err, tuner.ErrNothingToRollBack) {
		return inputError(err)
	}
	if err != nil {
		return failedError(err)
	}
	fmt.Fprintf(a.stdout, "rolled back %s to the config before %s (run %s)\n", p.Config, p.Trial, p.Run)
	return nil
}

// newPromoter returns a promoter for the production config (backend.config)
// whose Verify brings the service up on the config on disk and runs check
// against it (see productionVerifier).
func (a *app) newPromoter(s *settings, store *runs.Store, check func(context.Context, backend.Searcher) error) (*tuner.Promoter, func(), error) {
	dir, err := os.MkdirTemp("", "tune-promote-*")
	if err != nil {
		return nil, nil, err
	}
	cleanup := func() { os.RemoveAll(dir) }
	abs, err := filepath.Abs(s.Backend.Config)
	if err != nil {
		cleanup()
		return nil, nil, err
	}
	verify, err := a.productionVerifier(s, abs, dir, check)
	if err != nil {
		cleanup()
		return nil, nil, err
	}
	// After a failed promotion the restored config is brought back up and
	// health-checked only: the promoted trial's smoke scores do not apply
	// to it.
	restore, err := a.productionVerifier(s, abs, dir, func(context.Context, backend.Searcher) error { return nil })
	if err != nil {
		cleanup()
		return nil, nil, err
	}
	pr := &tuner.Promoter{
		ConfigPath: abs,
		BackupDir:  filepath.Join(store.Dir, "backups"),
		Journal:    filepath.Join(store.Dir, runs.PromotionsFile),
		Verify:     verify,
		Restore:    restore,
	}
	return pr, cleanup, nil
}

// sampleQueries picks up to n judged queries, spread evenly over the set in
// id order (deterministic).
func sampleQueries(qs []tuner.Query, n int) []tuner.Query {
	var judged []tuner.Query
	for _, q := range qs {
		if len(q.Judgments) > 0 {
			judged = append(judged, q)
		}
	}
	sort.Slice(judged, func(i, j int) bool { return judged[i].ID < judged[j].ID })
	if len(judged) <= n {
		return judged
	}
	out := make([]tuner.Query, 0, n)
	for i := 0; i < n; i++ {
		out = append(out, judged[i*len(judged)/n])
	}
	return out
}

func orNone(s string) string {
	if s == "" {
		return "(none: the file was new)"
	}
	return s
}
