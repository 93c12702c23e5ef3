package tuner_test

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/experiments"
	"github.com/fusiontune/fusiontune/metrics"
	"github.com/fusiontune/fusiontune/runs"
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
	return newLandscape(), nil
}
func (f *landscapes) Replica(string) backend.Factory { return f }

// runConfig is a tuner.Config for a sweep (or a study) on landscapes.
func runConfig(t *testing.T, trials []experiments.TrialSpec, study *sampler.Options, gates ...string) tuner.Config {
	t.Helper()
	store, err := runs.Open(filepath.Join(t.TempDir(), "runs"))
	if err != nil {
		t.Fatal(err)
	}
	sc, err := tuner.NewScorer("NDCG@10", nil, metrics.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	var gs []tuner.Gate
	for _, g := range gates {
		p, err := tuner.ParseGate(g)
		if err != nil {
			t.Fatal(err)
		}
		gs = append(gs, p)
	}
	return tuner.Config{
		Store: store, Manifest: runs.Manifest{Tool: "test", Backend: "landscape"},
		Trials: trials, Study: study, Queries: landscapeQueries(36), Dataset: "landscape",
		Scorer: sc, Eval: tuner.EvalOptions{Concurrency: 2}, Backend: &landscapes{},
		Stats: tuner.StatsOptions{Seed: 7}, Gates: gs,
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
	if failed := tuner.FailedGates(out.Gates); len(failed) != 1 || failed[0].Text != "primary[b] > 2" {
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
