package main_test

import (
	"math"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fusiontune/fusiontune/backend/weaviate/weaviatetest"
)

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
	bin, err := weaviatetest.Bin()
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%v, and CI=true", err)
		}
		t.Skip(err)
	}
	e := newSweepEnv(t, "")
	e.write("tune.yaml", readmeBlock(t, "weaviate/tune.yaml", strings.NewReplacer("/root/go/bin/weaviate-server", bin, "lsa-256", "hash-64", "runs_dir: tuning_runs", "runs_dir: runs")))
	exp := e.write("grid.yaml", weaviateGrid)
	began := time.Now()
	replayRun, stdout, stderr := e.newRun(t, "--experiments", exp, "--mode", "replay", "--verify", "100")
	replayWall := time.Since(began)
	if !strings.Contains(stderr, "collected candidate lists") {
		t.Errorf("stderr lacks the collection:\n%s", stderr)
	}
	diffs := regexp.MustCompile(`verified "[^"]+" live through [^\n]*\(largest difference ([^)]+)\)`).FindAllStringSubmatch(stderr, -1)
	if len(diffs) != 10 {
		t.Errorf("%d trials verified live, want 10:\n%s", len(diffs), stderr)
	}
	if !strings.Contains(stderr, "apply + restart (the engine's depth differs") {
		t.Errorf("the depth-50 trial was not verified on its own depth:\n%s", stderr)
	}
	for _, d := range diffs {
		x, err := strconv.ParseFloat(d[1], 64)
		if err != nil || x > 1e-9 {
			t.Errorf("replay and live differ: %s", d[0])
		}
	}
	if !strings.Contains(stdout, "ok (verified)") {
		t.Errorf("leaderboard shows no verified trial:\n%s", stdout)
	}
	_, replayed := readLeaderboardTrials(t, replayRun)
	if len(replayed) != 10 {
		t.Fatalf("%d trials on the leaderboard, want 10", len(replayed))
	}
	for name, tr := range replayed {
		if tr.Status != "ok" || tr.Mode != "verified" {
			t.Errorf("trial %s: status %s mode %s, want ok, verified (replayed, then checked live)", name, tr.Status, tr.Mode)
		}
	}
	began = time.Now()
	liveRun, _, _ := e.newRun(t, "--experiments", exp, "--mode", "live")
	t.Logf("grid of %d trials: replay (all verified live) %v, live %v", len(replayed), replayWall.Round(time.Millisecond), time.Since(began).Round(time.Millisecond))
	_, live := readLeaderboardTrials(t, liveRun)
	for name, tr := range replayed {
		l, ok := live[name]
		if !ok || l.Mode != "live" || math.Abs(l.Primary-tr.Primary) > 1e-9 {
			t.Errorf("trial %s: replayed primary %v, live %+v", name, tr.Primary, l)
		}
	}
}
