package promote

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/fusiontune/fusiontune/tuner/replay"

	"github.com/fusiontune/fusiontune/tuner/pass"

	"github.com/fusiontune/fusiontune/tuner/scoring"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/internal/inputerr"
	"github.com/fusiontune/fusiontune/runs"
)

// DefaultSmokeQueries is how many judged golden-set queries a promotion
// re-evaluates on the promoted config.
const DefaultSmokeQueries = 20

// VerifyFunc returns a promotion's Verify for the production service: bring
// it up on the production config now on disk (config, absolute), wait until
// it is healthy and run check against it. dir is a scratch directory the
// caller removes.
type VerifyFunc func(config, dir string, check func(context.Context, backend.Searcher) error) (func(context.Context) error, error)

// Config is what Trial needs, as plain values.
type Config struct {
	// ConfigPath is the production config file (setting backend.config).
	ConfigPath string
	// Store holds the run; the backups and promotions.jsonl live in it.
	Store *runs.Store
	Run   *runs.Run
	// Entry is the leaderboard entry of the trial to promote.
	Entry runs.Entry
	// Force promotes even when the policy refuses; the reasons overridden
	// are journaled.
	Force  bool
	Policy Policy
	// Golden returns the golden set's queries and the scorer for the
	// smoke evaluation; it is called once the policy allows the promotion.
	Golden func() ([]scoring.Query, scoring.Scorer, error)
	Eval   pass.EvalOptions
	// SmokeQueries is how many judged queries are re-evaluated (0:
	// DefaultSmokeQueries).
	SmokeQueries int
	NewVerify    VerifyFunc
	// Install turns the trial's recorded backend config into the bytes
	// written to ConfigPath (nil: as recorded), e.g. embedded.Portable.
	Install func(config []byte) ([]byte, error)
	// Log receives the policy's verdict and warnings.
	Log io.Writer
}

// Promoted is a promotion that went through.
type Promoted struct {
	Promotion
	// Primary is the promoted trial's recorded primary score.
	Primary float64
}

// Trial installs a recorded trial's exact backend config as the
// production config: it applies the promotion policy, then writes the
// config safely (Promoter: backup, atomic write, restart, health check and a
// smoke evaluation of a sample of the golden set against the scores the
// trial recorded), restoring the previous config on any failure. Problems
// with the user's request are *inputerr.Error; a refusal by the policy is a
// plain error listing every reason.
func Trial(ctx context.Context, c Config) (*Promoted, error) {
	rec, err := c.record()
	if err != nil {
		return nil, err
	}
	var (
		sample   []scoring.Query
		recorded = map[string]float64{}
		sc       scoring.Scorer
	)
	pr, cleanup, err := NewProduction(c.ConfigPath, c.Store, c.NewVerify, func(ctx context.Context, b backend.Searcher) error {
		return pass.SmokeCheck(ctx, b, sample, recorded, sc, c.Eval)
	})
	if err != nil {
		return nil, err
	}
	defer cleanup()
	// A promotion interrupted before its outcome left the production config
	// unverified: roll it back before the policy reads that config.
	if u, err := pr.Unfinished(); err != nil {
		return nil, err
	} else if u != nil {
		fmt.Fprintf(c.Log, "tune: %s: rolling it back first\n", pr.State(*u))
		if _, err := pr.Recover(ctx, *u); err != nil {
			return nil, err
		}
	}
	forced, reason, err := c.checkPolicy(ctx)
	if err != nil {
		return nil, err
	}
	queries, sc, err := c.Golden()
	if err != nil {
		return nil, err
	}
	replay.EnsureDeriver(c.Run)
	results, err := c.Run.QueryResults(rec.Index)
	if err != nil {
		return nil, err
	}
	for _, r := range results {
		recorded[r.QueryID] = r.Primary
	}
	n := c.SmokeQueries
	if n <= 0 {
		n = DefaultSmokeQueries
	}
	// Only the queries the trial was scored on (a dev-split run's dev
	// queries) have a recorded score to reproduce.
	scored := queries[:0:0]
	for _, q := range queries {
		if _, ok := recorded[q.ID]; ok {
			scored = append(scored, q)
		}
	}
	sample = sampleQueries(scored, n)
	config := []byte(rec.BackendConfig)
	if c.Install != nil {
		if config, err = c.Install(config); err != nil {
			return nil, err
		}
	}
	p, err := pr.Promote(ctx, config, Promotion{Run: c.Run.ID(), Trial: rec.Name, Params: rec.Params, Forced: forced, Reason: reason})
	if err != nil {
		return nil, err
	}
	return &Promoted{Promotion: p, Primary: rec.Primary}, nil
}

// record returns the trial record of the entry to promote.
func (c Config) record() (*runs.TrialRecord, error) {
	if c.Entry.Status != runs.StatusOK {
		return nil, inputerr.Wrap(fmt.Errorf("trial %q did not succeed (%s): nothing to promote", c.Entry.Name, c.Entry.Status))
	}
	if c.ConfigPath == "" {
		return nil, inputerr.Wrap(errors.New("backend.config: set it to the production engine config file to promote into"))
	}
	rec, err := c.Run.Trial(c.Entry.Index)
	if err != nil {
		return nil, err
	}
	if rec.BackendConfig == "" {
		return nil, fmt.Errorf("run %s: trial %q has no recorded backend config", c.Run.ID(), c.Entry.Name)
	}
	return &rec, nil
}

// checkPolicy applies the promotion policy to the entry. It returns an
// error naming every reason when the policy refuses and Force is off; with
// Force it warns and returns forced = true with the overridden reasons, for
// the promotions journal.
func (c Config) checkPolicy(ctx context.Context) (forced bool, reason string, err error) {
	lb, err := c.Run.ReadLeaderboard()
	if err != nil {
		return false, "", err
	}
	production, err := os.ReadFile(c.ConfigPath) // nil when there is none yet
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return false, "", fmt.Errorf("promotion policy: read production config: %w", err)
	}
	entry := c.Entry
	policy := c.Policy
	if policy.Install == nil {
		policy.Install = c.Install
	}
	d, err := CheckContext(ctx, c.Run, lb, entry, production, policy)
	if err != nil {
		return false, "", fmt.Errorf("promotion policy: %w", err)
	}
	if r := unfinishedRun(c.Run); r != "" {
		d.Reasons, d.Allowed = append([]string{r}, d.Reasons...), false
	}
	if d.Allowed {
		fmt.Fprintf(c.Log, "promotion policy: %q is significantly better than %s %q: %s\n", entry.Name, d.Reference, d.Against, d.Summary())
		return false, "", nil
	}
	why := strings.Join(d.Reasons, "; ")
	if c.Force {
		fmt.Fprintf(c.Log, "warning: promotion policy overridden by --force: %s\n", why)
		return true, "forced past the promotion policy: " + why, nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "refusing to promote %q (run %s):", entry.Name, c.Run.ID())
	for _, r := range d.Reasons {
		b.WriteString("\n  - " + r)
	}
	b.WriteString("\n(--force promotes anyway and records it in promotions.jsonl)")
	return false, "", errors.New(b.String())
}

// UnfinishedState returns, when a promotion or rollback of the production
// config (configPath) journaled in store was interrupted (see
// Promoter.Unfinished), what state it left: which config the file holds
// and where the previous one is. "" when there is none.
func UnfinishedState(configPath string, store *runs.Store) (string, error) {
	abs, err := filepath.Abs(configPath)
	if err != nil {
		return "", err
	}
	pr := &Promoter{ConfigPath: abs, Journal: filepath.Join(store.Dir, runs.PromotionsFile)}
	u, err := pr.Unfinished()
	if err != nil || u == nil {
		return "", err
	}
	return pr.State(*u), nil
}

// Rollback restores the production config (configPath) that the
// last promotion journaled in store replaced, brings the service up on it
// and checks its health. With no promotion on record it returns
// ErrNothingToRollBack.
func Rollback(ctx context.Context, configPath string, store *runs.Store, newVerify VerifyFunc) (Promotion, error) {
	pr, cleanup, err := NewProduction(configPath, store, newVerify, func(context.Context, backend.Searcher) error { return nil })
	if err != nil {
		return Promotion{}, err
	}
	defer cleanup()
	return pr.Rollback(ctx)
}

// NewProduction returns a promoter for the production config
// (configPath) whose backups and journal live in store, whose Verify
// brings the service up on the config on disk and runs check against it,
// and whose Restore, after a failed promotion, brings the restored config
// back up and health-checks it only (the promoted trial's smoke scores do
// not apply to it). cleanup removes the verifiers' scratch directory.
func NewProduction(configPath string, store *runs.Store, newVerify VerifyFunc, check func(context.Context, backend.Searcher) error) (pr *Promoter, cleanup func(), err error) {
	// The verifiers' scratch directory lives in the runs directory, not
	// os.TempDir: the engine builds caches and configs there and renames
	// them into place, which must not cross filesystems.
	if err := os.MkdirAll(store.Dir, 0o755); err != nil {
		return nil, nil, err
	}
	dir, err := os.MkdirTemp(store.Dir, ".promote-*")
	if err != nil {
		return nil, nil, err
	}
	cleanup = func() { os.RemoveAll(dir) }
	abs, err := filepath.Abs(configPath)
	if err != nil {
		cleanup()
		return nil, nil, err
	}
	verify, err := newVerify(abs, dir, check)
	if err != nil {
		cleanup()
		return nil, nil, err
	}
	restore, err := newVerify(abs, dir, func(context.Context, backend.Searcher) error { return nil })
	if err != nil {
		cleanup()
		return nil, nil, err
	}
	pr = &Promoter{
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
func sampleQueries(qs []scoring.Query, n int) []scoring.Query {
	var judged []scoring.Query
	for _, q := range qs {
		if len(q.Judgments) > 0 {
			judged = append(judged, q)
		}
	}
	sort.Slice(judged, func(i, j int) bool { return judged[i].ID < judged[j].ID })
	if len(judged) <= n {
		return judged
	}
	out := make([]scoring.Query, 0, n)
	for i := 0; i < n; i++ {
		out = append(out, judged[i*len(judged)/n])
	}
	return out
}

// WarnUnfinished tells the user, on w, when a promotion into configPath
// was interrupted (its intent journaled in store, no outcome): which config
// the file holds now, where the previous one is, and that tune rollback
// (or the next tune apply) completes the rollback. It says nothing when
// configPath is "" or a live tune holds its lock (promoting right now).
func WarnUnfinished(w io.Writer, configPath string, store *runs.Store) {
	if configPath == "" || runs.ConfigLockHeld(configPath) {
		return
	}
	state, err := UnfinishedState(configPath, store)
	switch {
	case err != nil:
		fmt.Fprintf(w, "warning: %v\n", err)
	case state != "":
		fmt.Fprintf(w, "warning: %s; 'tune rollback' restores the previous config and brings the service back up\n", state)
	}
}

// unfinishedRun says why run is not promotable as it stands, "" when it
// finished (its manifest says done): a run that failed, was interrupted
// or is still running ranks trials that may be unverified or missing.
func unfinishedRun(run *runs.Run) string {
	m := run.Manifest
	if m.Status == "done" {
		return ""
	}
	why := fmt.Sprintf("run %s did not finish (status %s", run.ID(), m.Status)
	if m.Error != "" {
		why += ": " + m.Error
	}
	return why + "): its ranking may rest on trials that were never verified or never ran"
}
