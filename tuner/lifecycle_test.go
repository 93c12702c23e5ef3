package tuner_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fusiontune/fusiontune/tuner/verdict"

	"github.com/fusiontune/fusiontune/tuner/analysis"

	"github.com/fusiontune/fusiontune/tuner/pass"

	"github.com/fusiontune/fusiontune/tuner/scoring"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/experiments"
	"github.com/fusiontune/fusiontune/internal/inputerr"
	"github.com/fusiontune/fusiontune/metrics"
	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/runs/report"
	"github.com/fusiontune/fusiontune/tuner"
	"github.com/fusiontune/fusiontune/tuner/sampler"
)

// landscapes is a backend.Factory of landscape backends (each replica its
// own), for the lifecycle tests: what is under test is Run, not a backend.
type landscapes struct {
	mu     sync.Mutex
	opened int
}

var (
	_ backend.Factory    = (*landscapes)(nil)
	_ backend.Replicator = (*landscapes)(nil)
)

func (f *landscapes) Check(map[string]any) error { return nil }
func (f *landscapes) Describe(p map[string]any) string {
	return "landscape " + experiments.Params(p).String() + "\n"
}
func (f *landscapes) Open(string, io.Writer) (backend.Backend, error) {
	f.mu.Lock()
	f.opened++
	f.mu.Unlock()
	return &failing{newLandscape()}, nil
}

// failing is a landscape whose searches fail while the running config has
// custom.fail set: a trial the backend cannot serve.
type failing struct{ *landscape }

func (b *failing) Search(ctx context.Context, req backend.SearchRequest) (backend.SearchResponse, error) {
	b.mu.Lock()
	bad := b.live["custom.fail"] != nil
	b.mu.Unlock()
	if bad {
		return backend.SearchResponse{}, errors.New("service unavailable")
	}
	return b.landscape.Search(ctx, req)
}
func (f *landscapes) Replica(string) backend.Factory { return f }

// runConfig is a tuner.Config for a sweep (or a study) on landscapes.
func runConfig(t *testing.T, trials []experiments.TrialSpec, study *sampler.Options, gates ...string) tuner.Config {
	t.Helper()
	store, err := runs.Open(filepath.Join(t.TempDir(), "runs"))
	if err != nil {
		t.Fatal(err)
	}
	sc, err := scoring.NewScorer("NDCG@10", nil, metrics.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	var gs []verdict.Gate
	for _, g := range gates {
		p, err := verdict.ParseGate(g)
		if err != nil {
			t.Fatal(err)
		}
		gs = append(gs, p)
	}
	return tuner.Config{
		Store: store, Manifest: runs.Manifest{Tool: "test", Backend: "landscape"},
		Trials: trials, Study: study, Queries: landscapeQueries(36), Dataset: "landscape",
		Scorer: sc, Eval: pass.EvalOptions{Concurrency: 2}, Backend: &landscapes{},
		Stats: analysis.StatsOptions{Seed: 7}, Gates: gs,
	}
}

func landscapeTrials() []experiments.TrialSpec {
	return []experiments.TrialSpec{
		{Name: "baseline", Baseline: true, Params: experiments.Params{"fusion.k": 60.0, "fusion.weights.bm25": 0.5, "fusion.method": "rrf"}},
		{Name: "k=40", Params: experiments.Params{"fusion.k": 40.0, "fusion.weights.bm25": 0.5, "fusion.method": "rrf"}},
		{Name: "k=80", Params: experiments.Params{"fusion.k": 80.0, "fusion.weights.bm25": 0.5, "fusion.method": "rrf"}},
	}
}

// checkFinished asserts what Run leaves in a finished run directory: the
// leaderboard with every trial compared with the baseline, the report, the
// manifest done with its timings, and the gates checked on the best trial.
func checkFinished(t *testing.T, out *tuner.Outcome, trials, gates int) {
	t.Helper()
	if len(out.Trials) != trials || len(out.Leaderboard.Trials) != trials {
		t.Fatalf("%d recorded trials, %d on the leaderboard, want %d", len(out.Trials), len(out.Leaderboard.Trials), trials)
	}
	for _, e := range out.Leaderboard.Trials {
		if e.Name == out.Leaderboard.Baseline || e.Status != runs.StatusOK {
			continue
		}
		if c := e.Comparison; c == nil || c.Against != "baseline" || c.Correction == "" || c.N != 36 {
			t.Errorf("trial %s: comparison with the baseline %+v", e.Name, c)
		}
	}
	for _, name := range []string{"leaderboard.json", "report.html", "manifest.json"} {
		if _, err := os.Stat(filepath.Join(out.Run.Dir, name)); err != nil {
			t.Errorf("run directory: %v", err)
		}
	}
	var m runs.Manifest
	data, err := os.ReadFile(filepath.Join(out.Run.Dir, "manifest.json"))
	if err == nil {
		err = json.Unmarshal(data, &m)
	}
	if err != nil || m.Status != "done" || m.Timings == nil || m.Timings.WallSeconds <= 0 {
		t.Errorf("manifest: status %q, timings %+v, %v", m.Status, m.Timings, err)
	}
	if len(out.Gates) != gates {
		t.Errorf("%d gates checked, want %d", len(out.Gates), gates)
	}
}

// TestRunSweep: Run executes a sweep and finishes it: leaderboard with
// significance, report, manifest and timings, gates.
func TestRunSweep(t *testing.T) {
	c := runConfig(t, landscapeTrials(), nil, "NDCG@10 >= 0", "primary[b] > 2")
	out, err := tuner.Run(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	checkFinished(t, out, 3, 2)
	if failed := verdict.FailedGates(out.Gates); len(failed) != 1 || failed[0].Text != "primary[b] > 2" {
		t.Errorf("failed gates %+v, want the impossible one", failed)
	}
}

// TestRunSharedEndsLikeASweep: two workers share a study through one
// SQLite database; each run ends holding the whole study (the other
// worker's trials brought in with their per-query results), compared with
// the baseline, reported and gated as a sweep is.
func TestRunSharedEndsLikeASweep(t *testing.T) {
	url := "sqlite:///" + filepath.Join(t.TempDir(), "study.db")
	so := &sampler.Options{Space: testSpace(), Sampler: sampler.TPE, Seed: 3, Trials: 9}
	outs := make([]*tuner.Outcome, 2)
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for w, name := range []string{"wa", "wb"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := runConfig(t, landscapeTrials()[:1], so, "NDCG@10 >= 0")
			c.Shared = &tuner.SharedConfig{URL: url, Study: "s", Worker: name, Parallel: 1}
			outs[w], errs[w] = tuner.Run(context.Background(), c)
		}()
	}
	wg.Wait()
	ran := map[string]string{}
	for w, out := range outs {
		if errs[w] != nil {
			t.Fatalf("worker %d: %v", w, errs[w])
		}
		checkFinished(t, out, 10, 1)
		for _, tr := range out.Trials {
			if !strings.HasSuffix(tr.Worker, "/0") {
				t.Errorf("trial %s: worker %q", tr.Name, tr.Worker)
			}
			if other, ok := ran[tr.Name]; ok && other != tr.Worker {
				t.Errorf("trial %s ran on %s and on %s", tr.Name, other, tr.Worker)
			}
			ran[tr.Name] = tr.Worker
		}
	}
	if len(ran) != 10 {
		t.Errorf("%d distinct trials, want 10", len(ran))
	}
}

// TestRunFailedTrials: trials the backend cannot serve are recorded as
// failed and the run goes on; with a failure budget it stops at the
// failure that spends it, the finished trials kept and the run failed.
func TestRunFailedTrials(t *testing.T) {
	trials := landscapeTrials()
	bad := func(name string) experiments.TrialSpec {
		return experiments.TrialSpec{Name: name, Params: experiments.Params{"fusion.k": 60.0, "fusion.weights.bm25": 0.5, "fusion.method": "rrf", "custom.fail": name}}
	}
	trials = append(trials[:2], bad("bad-1"), trials[2], bad("bad-2"), bad("bad-3"))
	c := runConfig(t, trials, nil)
	out, err := tuner.Run(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	failed := 0
	for _, tr := range out.Trials {
		if tr.Status == runs.StatusFailed {
			failed++
			if !strings.Contains(tr.Error, "service unavailable") {
				t.Errorf("%s: error %q", tr.Name, tr.Error)
			}
		}
	}
	if len(out.Trials) != 6 || failed != 3 {
		t.Errorf("%d trials, %d failed; want 6 and 3", len(out.Trials), failed)
	}

	c = runConfig(t, trials, nil)
	c.FailureBudget = 2
	out, err = tuner.Run(context.Background(), c)
	if !errors.Is(err, tuner.ErrFailureBudget) || out == nil {
		t.Fatalf("budget 2: %v, outcome %v", err, out)
	}
	if out.Run.Manifest.Status != "failed" || len(out.Trials) != 5 {
		t.Errorf("budget 2: status %q, %d trials recorded (want failed, 5: up to bad-2)", out.Run.Manifest.Status, len(out.Trials))
	}
}

// cancelAfter cancels the run's context once n trials are done.
type cancelAfter struct {
	n      int
	cancel context.CancelFunc
}

func (p *cancelAfter) TrialStarted(int, int, string) {}
func (p *cancelAfter) QueryDone(int, int)            {}
func (p *cancelAfter) TrialDone(i, _ int, _ runs.TrialRecord, _ time.Duration) {
	if i == p.n {
		p.cancel()
	}
}

// TestRunResume: a run interrupted after two trials is left "interrupted"
// with the hint; resumed, it redoes none of them and ends with the
// leaderboard an uninterrupted run writes, byte for byte.
func TestRunResume(t *testing.T) {
	whole, err := tuner.Run(context.Background(), runConfig(t, landscapeTrials(), nil))
	if err != nil {
		t.Fatal(err)
	}
	c := runConfig(t, landscapeTrials(), nil)
	ctx, cancel := context.WithCancel(context.Background())
	c.Progress = &cancelAfter{n: 2, cancel: cancel}
	c.ResumeHint = func(id string) string { return "resume " + id }
	out, err := tuner.Run(ctx, c)
	cancel()
	if err == nil || !strings.Contains(err.Error(), "interrupted: resume ") {
		t.Fatalf("interrupted run: %v", err)
	}
	if out == nil || out.Run.Manifest.Status != "interrupted" || len(out.Trials) != 2 {
		t.Fatalf("interrupted run: outcome %+v", out)
	}
	c.Progress, c.Resume = nil, out.Run.ID()
	again, err := tuner.Run(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	if again.Skipped != 2 || again.Run.Dir != out.Run.Dir || again.Run.Manifest.Status != "done" {
		t.Errorf("resumed: %d skipped, dir %s (was %s), status %q", again.Skipped, again.Run.Dir, out.Run.Dir, again.Run.Manifest.Status)
	}
	a, _ := os.ReadFile(filepath.Join(whole.Run.Dir, "leaderboard.json"))
	b, _ := os.ReadFile(filepath.Join(again.Run.Dir, "leaderboard.json"))
	if len(a) == 0 || string(a) != string(b) {
		t.Errorf("resumed leaderboard.json differs from an uninterrupted run's")
	}
	c.Resume = "nope"
	var ie *inputerr.Error
	if _, err := tuner.Run(context.Background(), c); !errors.As(err, &ie) {
		t.Errorf("resume of an unknown run: %v, want an inputerr.Error", err)
	}
}

// TestRunHeldOut: tuned on one split, the best trial is scored on the
// held-out queries after the sweep, in the leaderboard and the run.
func TestRunHeldOut(t *testing.T) {
	trials := landscapeTrials()
	trials[0].Baseline, trials[2].Baseline = false, true // a baseline the best beats
	c := runConfig(t, trials, nil)
	c.HeldOut = func() ([]scoring.Query, error) { return landscapeQueries(12), nil }
	out, err := tuner.Run(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	best, _ := out.Best()
	h := out.Leaderboard.HeldOut
	if h == nil || h.Trial != best.Name || h.Queries != 12 {
		t.Fatalf("held-out estimate %+v for best %s", h, best.Name)
	}
	for _, f := range []string{"heldout.queries.jsonl", "heldout.reference.queries.jsonl"} {
		if _, err := os.Stat(filepath.Join(out.Run.Dir, f)); err != nil {
			t.Error(err)
		}
	}
	// Select, then confirm: one pre-planned comparison with the baseline
	// on the held-out queries, no correction.
	cf := h.Confirmation
	if cf == nil || cf.Against != out.Leaderboard.Baseline || cf.Family != 1 || cf.Correction != "none" || cf.N != 12 ||
		!strings.Contains(cf.Rule, "one pre-planned comparison on the held-out queries") || h.DevDelta == nil {
		t.Fatalf("confirmation %+v, dev delta %v", cf, h.DevDelta)
	}
	if base, _ := out.Leaderboard.Find(out.Leaderboard.Baseline); *h.DevDelta != runs.Round(best.Primary-base.Primary) {
		t.Errorf("dev delta %v, want %v", *h.DevDelta, best.Primary-base.Primary)
	}
}

// TestRunReportAsTuneReport: the report a run renders while its
// leaderboard's files are written (from the leaderboard's bytes) is the
// report `tune report` renders from the finished run's files, with
// gates, and the run is done.
func TestRunReportAsTuneReport(t *testing.T) {
	c := runConfig(t, landscapeTrials(), nil, "NDCG@10 >= 0")
	out, err := tuner.Run(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(out.Run.Dir, report.FileName))
	if err != nil {
		t.Fatal(err)
	}
	run, err := c.Store.Resolve(out.Run.ID())
	if err != nil {
		t.Fatal(err)
	}
	if run.Manifest.Status != "done" {
		t.Errorf("status %q, want done", run.Manifest.Status)
	}
	var want bytes.Buffer
	if err := report.Render(&want, run, report.DefaultOptions()); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want.Bytes()) {
		t.Errorf("the run's report (%d bytes) differs from tune report's (%d bytes)", len(got), want.Len())
	}
}

// closesSlowly is landscapes whose backends take a while to close.
type closesSlowly struct {
	landscapes
	close time.Duration
}

func (f *closesSlowly) Open(dir string, log io.Writer) (backend.Backend, error) {
	b, err := f.landscapes.Open(dir, log)
	return &slowCloser{b, f.close}, err
}

type slowCloser struct {
	backend.Backend
	d time.Duration
}

func (b *slowCloser) Close() error {
	time.Sleep(b.d)
	return b.Backend.Close()
}

// TestRunTimingsCoverSlowStop: a backend whose stop outlasts the
// analysis made beside it: the wall time covers the whole stop, which
// the start/stop time holds, so the overhead is what the tuner spent
// outside backend calls (never below zero) and the three parts add up.
func TestRunTimingsCoverSlowStop(t *testing.T) {
	c := runConfig(t, landscapeTrials()[:2], nil)
	c.Backend = &closesSlowly{close: 400 * time.Millisecond}
	c.Started = time.Now()
	out, err := tuner.Run(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	tm := out.Timings
	if tm.StartStopSeconds < 0.4 || tm.OverheadSeconds < 0 || tm.WallSeconds < tm.StartStopSeconds+tm.SearchSeconds {
		t.Errorf("timings %+v: want start/stop >= 0.4 s (the stop), a wall time holding it and overhead >= 0", tm)
	}
	if got := time.Since(c.Started).Seconds(); tm.WallSeconds > got {
		t.Errorf("wall %.3f s, longer than the run (%.3f s)", tm.WallSeconds, got)
	}
}
