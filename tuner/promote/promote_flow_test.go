package promote_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fusiontune/fusiontune/tuner/analysis"

	"github.com/fusiontune/fusiontune/tuner/scoring"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/internal/inputerr"
	"github.com/fusiontune/fusiontune/metrics/stats"
	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner/promote"
)

// promoteFixture is a recorded run with a baseline and two trials over 30
// queries in categories a and b: "better" gains 0.2 on every query of a
// and loses 0.01 on every query of b, "noise" wobbles ±0.01 around the
// baseline. Each trial's backend config is "config: NAME".
type promoteFixture struct {
	store *runs.Store
	run   *runs.Run
	lb    runs.Leaderboard
	prod  string // the production config, holding "config: production"
}

func newPromoteFixture(t *testing.T) *promoteFixture {
	t.Helper()
	dir := t.TempDir()
	store, err := runs.Open(filepath.Join(dir, "runs"))
	if err != nil {
		t.Fatal(err)
	}
	run, err := store.Create(runs.Manifest{Seed: 7}, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	var recs []runs.TrialRecord
	for ti, name := range []string{"baseline", "better", "noise"} {
		var results []runs.QueryResult
		var sum float64
		cats := map[string]float64{}
		for q := 0; q < 30; q++ {
			p, cat := 0.3+0.01*float64(q%7), "a"
			if q >= 15 {
				cat = "b"
			}
			switch {
			case name == "better" && cat == "a":
				p += 0.2
			case name == "better":
				p -= 0.01
			case name == "noise":
				p += 0.01 * float64(1-2*(q%2))
			}
			sum += p
			cats[cat] += p / 15
			results = append(results, runs.QueryResult{QueryID: fmt.Sprintf("q%02d", q), Category: cat, Primary: p})
		}
		rec := runs.TrialRecord{Index: ti, Name: name, Status: runs.StatusOK, Mode: "live", Baseline: ti == 0,
			Primary: sum / 30, BackendConfig: "config: " + name + "\n",
			Summary: runs.Summary{Queries: 30, Categories: map[string]map[string]float64{"a": {"primary": cats["a"]}, "b": {"primary": cats["b"]}}}}
		if err := run.RecordTrial(rec, results); err != nil {
			t.Fatal(err)
		}
		recs = append(recs, rec)
	}
	lb := runs.NewLeaderboard("", nil, recs)
	if err := run.WriteLeaderboard(lb); err != nil {
		t.Fatal(err)
	}
	if err := run.Finish("done", nil, time.Date(2026, 1, 1, 0, 1, 0, 0, time.UTC)); err != nil {
		t.Fatal(err)
	}
	prod := filepath.Join(dir, "prod.yaml")
	if err := os.WriteFile(prod, []byte("config: production\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return &promoteFixture{store: store, run: run, lb: lb, prod: prod}
}

// config promotes trial; verify fails the promotion when it returns an
// error, restore reports what the restored config came back as.
func (f *promoteFixture) config(t *testing.T, trial string, log *bytes.Buffer, verify func(config string) error) promote.Config {
	t.Helper()
	entry, err := f.lb.Find(trial)
	if err != nil {
		t.Fatal(err)
	}
	th := stats.DefaultThresholds()
	return promote.Config{
		ConfigPath: f.prod, Store: f.store, Run: f.run, Entry: entry, Log: log,
		Policy: promote.Policy{Stats: analysis.StatsOptions{Thresholds: th, Correction: stats.Holm, Seed: 7}},
		Golden: func() ([]scoring.Query, scoring.Scorer, error) { return nil, nil, nil },
		NewVerify: func(config, dir string, check func(context.Context, backend.Searcher) error) (func(context.Context) error, error) {
			return func(context.Context) error {
				data, err := os.ReadFile(config)
				if err != nil {
					return err
				}
				return verify(string(data))
			}, nil
		},
	}
}

func (f *promoteFixture) production(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(f.prod)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func TestPromoteTrialPolicy(t *testing.T) {
	ok := func(string) error { return nil }
	t.Run("significant", func(t *testing.T) {
		f := newPromoteFixture(t)
		var log bytes.Buffer
		p, err := promote.Trial(context.Background(), f.config(t, "better", &log, ok))
		if err != nil {
			t.Fatal(err)
		}
		if p.Trial != "better" || p.Run != f.run.ID() || p.Status != "ok" || p.Forced || p.Backup == "" {
			t.Errorf("promotion: %+v", p)
		}
		if got := f.production(t); got != "config: better\n" {
			t.Errorf("production config %q", got)
		}
		if want := `promotion policy: "better" is significantly better than the baseline "baseline": Δ +0.09`; !strings.HasPrefix(log.String(), want) {
			t.Errorf("log %q, want it to start %q", log.String(), want)
		}
	})
	t.Run("refused", func(t *testing.T) {
		f := newPromoteFixture(t)
		var log bytes.Buffer
		_, err := promote.Trial(context.Background(), f.config(t, "noise", &log, ok))
		var ie *inputerr.Error
		if err == nil || errors.As(err, &ie) {
			t.Fatalf("err = %v, want a refusal (not an input error)", err)
		}
		for _, want := range []string{`refusing to promote "noise" (run ` + f.run.ID() + "):\n  - ", `is not significantly better than the baseline "baseline"`, "\n(--force promotes anyway"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("error lacks %q:\n%v", want, err)
			}
		}
		if got := f.production(t); got != "config: production\n" {
			t.Errorf("a refused promotion wrote the production config: %q", got)
		}
		if _, err := os.Stat(filepath.Join(f.store.Dir, runs.PromotionsFile)); err == nil {
			t.Error("a refused promotion was journaled")
		}
	})
	t.Run("guarded", func(t *testing.T) {
		f := newPromoteFixture(t)
		var log bytes.Buffer
		c := f.config(t, "better", &log, ok)
		c.Policy.Guarded = []string{"b"}
		_, err := promote.Trial(context.Background(), c)
		if want := `guarded category "b" regresses by 0.0100 (0.3287 -> 0.3187), more than the tolerance 0.0000`; err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("err = %v, want it to name %q", err, want)
		}
		c.Policy.Tolerance = 0.02
		if _, err := promote.Trial(context.Background(), c); err != nil {
			t.Fatalf("within the tolerance: %v", err)
		}
	})
	t.Run("forced", func(t *testing.T) {
		f := newPromoteFixture(t)
		var log bytes.Buffer
		c := f.config(t, "noise", &log, ok)
		c.Force = true
		p, err := promote.Trial(context.Background(), c)
		if err != nil {
			t.Fatal(err)
		}
		if !p.Forced || !strings.HasPrefix(p.Reason, "forced past the promotion policy: ") {
			t.Errorf("promotion: %+v", p)
		}
		if !strings.HasPrefix(log.String(), "warning: promotion policy overridden by --force: ") {
			t.Errorf("log %q", log.String())
		}
		hist, err := promote.ReadPromotions(filepath.Join(f.store.Dir, runs.PromotionsFile))
		if err != nil || len(hist) != 2 || hist[0].Status != promote.StatusPending || hist[1].Status != promote.StatusOK || !hist[1].Forced {
			t.Errorf("journal: %+v, %v", hist, err)
		}
	})
}

// TestPromoteUnfinishedRun: the best trial of a run that failed, was
// interrupted or is still running is not promoted without --force, which
// journals why.
func TestPromoteUnfinishedRun(t *testing.T) {
	ok := func(string) error { return nil }
	for _, status := range []string{"failed", "interrupted", "running", "analysing"} {
		t.Run(status, func(t *testing.T) {
			f := newPromoteFixture(t)
			f.run.Manifest.Status, f.run.Manifest.Error = status, ""
			if status == "failed" {
				f.run.Manifest.Error = `replay and live results differ on query "475"`
			}
			var log bytes.Buffer
			c := f.config(t, "better", &log, ok)
			_, err := promote.Trial(context.Background(), c)
			want := "run " + f.run.ID() + " did not finish (status " + status
			if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "(--force promotes anyway") {
				t.Fatalf("err = %v, want a refusal saying %q", err, want)
			}
			if status == "failed" && !strings.Contains(err.Error(), "replay and live results differ") {
				t.Errorf("the refusal does not say why the run failed: %v", err)
			}
			if got := f.production(t); got != "config: production\n" {
				t.Errorf("a refused promotion wrote the production config: %q", got)
			}
			c.Force = true
			p, err := promote.Trial(context.Background(), c)
			if err != nil || !p.Forced || !strings.Contains(p.Reason, "did not finish") {
				t.Fatalf("forced: %+v, %v", p, err)
			}
		})
	}
}

// TestPromoteRecognisesProduction: a production file that says what a
// trial's config says, laid out otherwise (indented JSON for the trial's
// YAML), is that trial's: promoting it again is refused (nothing to gain).
func TestPromoteRecognisesProduction(t *testing.T) {
	f := newPromoteFixture(t)
	if err := os.WriteFile(f.prod, []byte("{\n  \"config\": \"better\"\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	_, err := promote.Trial(context.Background(), f.config(t, "better", &log, func(string) error { return nil }))
	if want := `the best trial "better" is the production config itself`; err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("err = %v, want %q", err, want)
	}
}

func TestPromoteTrialFailures(t *testing.T) {
	t.Run("input errors", func(t *testing.T) {
		f := newPromoteFixture(t)
		var log bytes.Buffer
		noConfig := f.config(t, "better", &log, nil)
		noConfig.ConfigPath = ""
		failed := f.config(t, "better", &log, nil)
		failed.Entry.Status = runs.StatusFailed
		for _, c := range []promote.Config{noConfig, failed} {
			_, err := promote.Trial(context.Background(), c)
			var ie *inputerr.Error
			if !errors.As(err, &ie) {
				t.Errorf("err = %v, want an InputError", err)
			}
		}
	})
	t.Run("verify fails", func(t *testing.T) {
		f := newPromoteFixture(t)
		var log bytes.Buffer
		var seen []string
		verify := func(config string) error {
			seen = append(seen, config)
			if config == "config: better\n" {
				return errors.New("not ready")
			}
			return nil
		}
		_, err := promote.Trial(context.Background(), f.config(t, "better", &log, verify))
		if err == nil || !strings.Contains(err.Error(), "previous config restored: not ready") {
			t.Fatalf("err = %v", err)
		}
		if got := f.production(t); got != "config: production\n" {
			t.Errorf("production config %q, want it restored", got)
		}
		if want := []string{"config: better\n", "config: production\n"}; fmt.Sprint(seen) != fmt.Sprint(want) {
			t.Errorf("verified %q, want %q", seen, want)
		}
	})
}

func TestRollbackProduction(t *testing.T) {
	f := newPromoteFixture(t)
	var log bytes.Buffer
	c := f.config(t, "better", &log, func(string) error { return nil })
	if _, err := promote.Rollback(context.Background(), f.prod, f.store, c.NewVerify); !errors.Is(err, promote.ErrNothingToRollBack) {
		t.Fatalf("rollback before any promotion: %v", err)
	}
	if _, err := promote.Trial(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	p, err := promote.Rollback(context.Background(), f.prod, f.store, c.NewVerify)
	if err != nil || p.Trial != "better" {
		t.Fatalf("rollback: %+v, %v", p, err)
	}
	if got := f.production(t); got != "config: production\n" {
		t.Errorf("production config %q after rollback", got)
	}
}
