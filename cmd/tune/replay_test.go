package main_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/tuner/replay"

	"github.com/fusiontune/fusiontune/runs"
)

// everyMethod has one trial per fusion method and normalization, a depth
// and a min_score variant, over two index groups (whole documents and
// 40-token chunks mapped back to documents).
const everyMethod = `{
  "baseline": {"params": {"fusion.method": "rrf", "fusion.k": 60, "chunk.size": 0}},
  "experiments": [
    {"name": "rrf-k10-weighted", "params": {"fusion.k": 10, "fusion.weights.bm25": 0.3, "fusion.weights.dense": 0.7}},
    {"name": "rrf-depth20", "params": {"depth": 20}},
    {"name": "rrf-min-score", "params": {"min_score": 0.025}},
    {"name": "linear-min_max", "params": {"fusion.method": "linear", "fusion.normalization": "min_max", "fusion.weights.bm25": 0.4}},
    {"name": "linear-z_score", "params": {"fusion.method": "linear", "fusion.normalization": "z_score"}},
    {"name": "linear-l2", "params": {"fusion.method": "linear", "fusion.normalization": "l2"}},
    {"name": "linear-none", "params": {"fusion.method": "linear", "fusion.normalization": "none"}},
    {"name": "combsum", "params": {"fusion.method": "combsum"}},
    {"name": "combmnz", "params": {"fusion.method": "combmnz", "fusion.normalization": "z_score"}},
    {"name": "c40-rrf", "params": {"chunk.size": 40, "fusion.k": 20}},
    {"name": "c40-linear", "params": {"chunk.size": 40, "fusion.method": "linear", "fusion.normalization": "l2"}},
    {"name": "c40-combmnz", "params": {"chunk.size": 40, "fusion.method": "combmnz"}}
  ]
}`

type lbTrial struct {
	Name      string             `json:"name"`
	Status    string             `json:"status"`
	Mode      string             `json:"mode"`
	Primary   float64            `json:"primary"`
	Scorecard map[string]float64 `json:"scorecard"`
}

func readLeaderboardTrials(t *testing.T, dir string) ([]byte, map[string]lbTrial) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "leaderboard.json"))
	if err != nil {
		t.Fatal(err)
	}
	var lb struct {
		Trials []lbTrial `json:"trials"`
	}
	if err := json.Unmarshal(data, &lb); err != nil {
		t.Fatal(err)
	}
	out := map[string]lbTrial{}
	for _, tr := range lb.Trials {
		out[tr.Name] = tr
	}
	return data, out
}

// TestSweepReplayEqualsLive replays every fusion method through the real
// `tune serve` process and verifies every trial live (per-request
// overrides, the min_score trial and the winner through apply + restart):
// the run fails unless each query's scores match. A second replay run
// gives byte-identical leaderboard JSON, and a live sweep (a restart per
// trial) scores every trial the same.
func TestSweepReplayEqualsLive(t *testing.T) {
	e := newSweepEnv(t, sweepSettings)
	exp := e.write("every.json", everyMethod)
	sweep := func(args ...string) (string, string, string) {
		t.Helper()
		return e.newRun(t, append([]string{"--experiments", exp}, args...)...)
	}
	verifiedRun, stdout, stderr := sweep("--mode", "replay", "--verify", "100")
	for _, want := range []string{"collected candidate lists", "through per-request fusion override", "through apply + restart (the winner)", "apply + restart (min_score differs"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if !strings.Contains(stdout, "ok (verified)") {
		t.Errorf("leaderboard shows no verified trial:\n%s", stdout)
	}
	// Two runs that keep their replayed records (only the winner is
	// re-run live): same leaderboard bytes, and per-query records equal to
	// a live run's but for request ids and latencies.
	replayRun, _, _ := sweep("--mode", "replay", "--verify", "0")
	againRun, _, _ := sweep("--mode", "replay", "--verify", "0")
	liveRun, _, _ := sweep("--mode", "live")
	_, replayed := readLeaderboardTrials(t, verifiedRun)
	first, _ := readLeaderboardTrials(t, replayRun)
	second, _ := readLeaderboardTrials(t, againRun)
	if !bytes.Equal(first, second) {
		t.Errorf("leaderboard.json differs between two identical replay sweeps")
	}
	// A replayed trial stores no per-query file: its records are derived
	// from the stored collection, and must be the live ones.
	rrun, err := runs.Load(replayRun)
	if err != nil {
		t.Fatal(err)
	}
	rrun.Derive = replay.NewDeriver()
	stored := 0
	for i := range 13 {
		name := fmt.Sprintf("trials/%03d.queries.jsonl", i)
		if _, err := os.Stat(filepath.Join(replayRun, name)); err == nil {
			stored++ // the winner, verified through apply + restart
		}
		res, err := rrun.QueryResults(i)
		if err != nil {
			t.Fatalf("trial %d: %v", i, err)
		}
		got, want := normalizedRecords(t, res), queryRecords(t, filepath.Join(liveRun, name))
		if got != want {
			t.Errorf("%s: replayed records differ from live ones:\n%.600s\nlive:\n%.600s", name, got, want)
		}
	}
	if stored != 1 {
		t.Errorf("%d replayed trials store per-query files, want 1 (the verified winner)", stored)
	}
	_, live := readLeaderboardTrials(t, liveRun)
	if len(replayed) != 13 || len(live) != 13 {
		t.Fatalf("%d replayed and %d live trials, want 13", len(replayed), len(live))
	}
	for name, r := range replayed {
		l := live[name]
		if r.Status != "ok" || r.Mode != "verified" || l.Mode != "live" {
			t.Errorf("%s: replay %s/%s, live %s/%s", name, r.Status, r.Mode, l.Status, l.Mode)
		}
		if r.Primary != l.Primary {
			t.Errorf("%s: primary %v replayed, %v live", name, r.Primary, l.Primary)
		}
		for m, v := range l.Scorecard {
			if r.Scorecard[m] != v {
				t.Errorf("%s: %s %v replayed, %v live", name, m, r.Scorecard[m], v)
			}
		}
	}
}

// queryRecords reads a queries.jsonl file without the fields that differ
// between any two runs (request ids, latencies).
func queryRecords(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var res []runs.QueryResult
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var r runs.QueryResult
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		res = append(res, r)
	}
	return normalizedRecords(t, res)
}

// normalizedRecords encodes per-query results one per line without the
// fields that differ between any two runs (request ids, latencies).
func normalizedRecords(t *testing.T, res []runs.QueryResult) string {
	t.Helper()
	var out strings.Builder
	for _, r := range res {
		r.RequestID, r.LatencyMS = "", 0
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		out.Write(append(b, '\n'))
	}
	return out.String()
}

func TestSweepModeFlag(t *testing.T) {
	e := newSweepEnv(t, sweepSettings)
	for _, tc := range []struct{ args, want string }{
		{"--mode fast", `--mode: mode "fast": want live, replay or auto`},
		{"--mode replay --verify -1", "--verify: must be >= 0 (got -1)"},
	} {
		_, stderr, code := e.run(append([]string{"--experiments", e.write("x.json", `{"baseline": {"params": {"fusion.k": 60}}}`)}, strings.Fields(tc.args)...)...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%s: exit %d, stderr %q, want 2 and %q", tc.args, code, stderr, tc.want)
		}
		if dirs := e.runDirs(); len(dirs) != 0 {
			t.Errorf("%s: run directory written: %v", tc.args, dirs)
		}
	}
}

// TestSweepDefaultModeAuto: without --mode a sweep on the embedded engine
// replays its query-time variants, verifies the best live and confirms the
// winner through apply + restart (mode auto).
func TestSweepDefaultModeAuto(t *testing.T) {
	e := newSweepEnv(t, sweepSettings)
	exp := e.write("exp.json", `{"baseline": {"params": {"fusion.k": 60}}, "grid": {"fusion.k": [10, 20, 30, 40, 50]}}`)
	stdout, stderr, code := e.run("--experiments", exp, "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	var lb struct {
		Trials []struct {
			Name, Mode string
		}
	}
	if err := json.Unmarshal([]byte(stdout), &lb); err != nil {
		t.Fatalf("leaderboard: %v\n%s", err, stdout)
	}
	modes := map[string]int{}
	for _, tr := range lb.Trials {
		modes[tr.Mode]++
	}
	if modes["replay"] == 0 || modes["verified"] == 0 || modes["live"] != 0 {
		t.Errorf("trial modes %v, want replayed and verified trials, none live", modes)
	}
	if !strings.Contains(stderr, "live through apply + restart (the winner)") {
		t.Errorf("the winner was not confirmed by apply + restart:\n%s", stderr)
	}
}
