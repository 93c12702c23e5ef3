package sweeptest_test

import (
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fusiontune/fusiontune/backend/weaviate/weaviatetest"
	"github.com/fusiontune/fusiontune/cmd/tune/internal/sweeptest"
)

// kindSettings writes the README's weaviate settings (with this machine's
// binary and a quicker embedder) as tune.yaml in a new directory and
// returns its path; it skips t without the binary (fails under CI=true).
func kindSettings(t *testing.T) string {
	t.Helper()
	bin, err := weaviatetest.Bin()
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%v, and CI=true", err)
		}
		t.Skip(err)
	}
	yaml := sweeptest.README(t, "weaviate/tune.yaml", strings.NewReplacer("/root/go/bin/weaviate-server", bin, "lsa-256", "hash-64"))
	return writeFile(t, t.TempDir(), "tune.yaml", yaml)
}

func writeFile(t *testing.T, dir, name, data string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestWeaviateSweep sweeps the demo dataset through the weaviate kind on a
// real weaviate-server the kind starts, with the README's settings:
// Weaviate's own parameter names, the common ones translated, a BM25-only
// trial and a depth change (a restart); every trial scores.
func TestWeaviateSweep(t *testing.T) {
	cfg := kindSettings(t)
	exp := writeFile(t, filepath.Dir(cfg), "exp.yaml", `baseline:
  params: {depth: 100}
experiments:
  - name: ranked-half
    params: {alpha: 0.5, fusionType: rankedFusion}
  - name: linear-dense3
    params: {fusion.method: linear, fusion.normalization: min_max, fusion.weights.bm25: 1, fusion.weights.dense: 3}
  - name: bm25-only
    params: {retrievers: [bm25]}
  - name: depth20
    params: {alpha: 0.5, fusionType: rankedFusion, depth: 20, bm25.k1: 0.9, bm25.b: 0.4}
`)
	r := sweeptest.Sweep(t, cfg, exp, sweeptest.Options{})
	for _, want := range []string{"weaviate: started", "weaviate: class Fusiontune_", "weaviate: restarted with QUERY_HYBRID_MAXIMUM_RESULTS=20"} {
		if !strings.Contains(r.Log, want) {
			t.Errorf("log lacks %q:\n%s", want, r.Log)
		}
	}
	trials := r.Trials(t)
	for _, name := range []string{"baseline", "ranked-half", "linear-dense3", "bm25-only", "depth20"} {
		if tr, ok := trials[name]; !ok || tr.Status != "ok" {
			t.Errorf("leaderboard trial %s: %+v (present %v), want ok", name, tr, ok)
		}
	}
}

// weaviateGrid is an alpha × fusionType grid and a shallower depth: one
// index group, so one collection of each query's bm25 and nearVector legs
// replays all of it.
const weaviateGrid = `baseline:
  params: {alpha: 0.5, fusionType: rankedFusion}
experiments:
  - name: ranked-depth50
    params: {depth: 50}
grid:
  alpha: [0, 0.3, 0.75, 1]
  fusionType: [rankedFusion, relativeScoreFusion]
`

// TestWeaviateSweepReplay runs an alpha × fusionType grid through the
// weaviate kind on a real weaviate-server in replay mode, verifying every
// trial live: the legs are collected once and fused in-process by
// Weaviate's formula (fusion.FormulaWeaviate), and each verified trial's
// per-query scores equal the live hybrid query's within 1e-9 (the run
// fails otherwise). The leaderboard names the trials replayed (verified),
// and a live sweep of the same grid scores every trial the same.
func TestWeaviateSweepReplay(t *testing.T) {
	cfg := kindSettings(t)
	exp := writeFile(t, filepath.Dir(cfg), "grid.yaml", weaviateGrid)
	began := time.Now()
	rep := sweeptest.Sweep(t, cfg, exp, sweeptest.Options{Mode: "replay", Verify: 100})
	replayWall := time.Since(began)
	if !strings.Contains(rep.Log, "collected candidate lists") {
		t.Errorf("log lacks the collection:\n%s", rep.Log)
	}
	diffs := regexp.MustCompile(`verified "[^"]+" live through [^\n]*\(largest difference ([^)]+)\)`).FindAllStringSubmatch(rep.Log, -1)
	if len(diffs) != 10 {
		t.Errorf("%d trials verified live, want 10:\n%s", len(diffs), rep.Log)
	}
	if !strings.Contains(rep.Log, "apply + restart (the engine's depth differs") {
		t.Errorf("the depth-50 trial was not verified on its own depth:\n%s", rep.Log)
	}
	for _, d := range diffs {
		x, err := strconv.ParseFloat(d[1], 64)
		if err != nil || x > 1e-9 {
			t.Errorf("replay and live differ: %s", d[0])
		}
	}
	replayed := rep.Trials(t)
	if len(replayed) != 10 {
		t.Fatalf("%d trials on the leaderboard, want 10", len(replayed))
	}
	for name, tr := range replayed {
		if tr.Status != "ok" || tr.Mode != "verified" {
			t.Errorf("trial %s: status %s mode %s, want ok, verified (replayed, then checked live)", name, tr.Status, tr.Mode)
		}
	}
	began = time.Now()
	live := sweeptest.Sweep(t, cfg, exp, sweeptest.Options{Mode: "live"}).Trials(t)
	t.Logf("grid of %d trials: replay (all verified live) %v, live %v", len(replayed), replayWall.Round(time.Millisecond), time.Since(began).Round(time.Millisecond))
	for name, tr := range replayed {
		l, ok := live[name]
		if !ok || l.Mode != "live" || math.Abs(l.Primary-tr.Primary) > 1e-9 {
			t.Errorf("trial %s: replayed primary %v, live %+v", name, tr.Primary, l)
		}
	}
}
