package main_test

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const studyExperiment = `{
  "seed": 5,
  "baseline": {"name": "baseline", "params": {"fusion.method": "rrf", "fusion.k": 60, "chunk.size": 0}},
  "sampler": "random",
  "trials": 5,
  "space": {
    "fusion.k": {"type": "int", "low": 5, "high": 100},
    "fusion.weights.bm25": {"type": "float", "low": 0, "high": 1},
    "fusion.method": {"type": "categorical", "choices": ["rrf", "linear"]}
  },
  "pruning": {"fraction": 0.25, "reduction_factor": 2}
}`

type studyEntry struct {
	Name     string         `json:"name"`
	Status   string         `json:"status"`
	Sampler  string         `json:"sampler"`
	Fraction float64        `json:"fraction"`
	Params   map[string]any `json:"params"`
	Index    int            `json:"trial"`
}

func readBoard(t *testing.T, runDir string) []studyEntry {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(runDir, "leaderboard.json"))
	if err != nil {
		t.Fatal(err)
	}
	var lb struct{ Trials []studyEntry }
	if err := json.Unmarshal(data, &lb); err != nil {
		t.Fatal(err)
	}
	return lb.Trials
}

// TestSweepSampledStudy runs a sampled study with pruning through the
// embedded engine (real restarts), then drops its last two trial records
// and resumes: the resumed run redoes only those two, with the same
// parameters.
func TestSweepSampledStudy(t *testing.T) {
	e := newSweepEnv(t, sweepSettings)
	exp := e.write("study.json", studyExperiment)
	stdout, stderr, code := e.run("--experiments", exp, "--mode", "live")
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	for _, want := range []string{"then 5 random trials (seed 5), pruning from 25% of the queries, η=2", "trial 6/6 random-005"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	dirs := e.runDirs()
	if len(dirs) != 1 {
		t.Fatalf("runs: %v", dirs)
	}
	first := readBoard(t, dirs[0])
	sampled := 0
	for _, en := range first {
		if en.Sampler == "random" {
			sampled++
			if !strings.Contains(stdout, en.Name) {
				t.Errorf("leaderboard on stdout lacks %s", en.Name)
			}
		}
		if en.Status == "pruned" && !(en.Fraction > 0 && en.Fraction < 1) {
			t.Errorf("%s pruned with fraction %v", en.Name, en.Fraction)
		}
	}
	if sampled != 5 || len(first) != 6 {
		t.Fatalf("%d sampled trials of %d, want 5 of 6", sampled, len(first))
	}

	for _, n := range []string{"004", "005"} {
		if err := os.Remove(filepath.Join(dirs[0], "trials", n+".json")); err != nil {
			t.Fatal(err)
		}
	}
	_, stderr, code = e.run("--experiments", exp, "--mode", "live", "--resume", filepath.Base(dirs[0]))
	if code != 0 {
		t.Fatalf("resume: exit %d\n%s", code, stderr)
	}
	if !strings.Contains(stderr, "(4 resumed)") || strings.Contains(stderr, "trial 4/6") || !strings.Contains(stderr, "trial 5/6 random-004") {
		t.Errorf("resume should redo exactly trials 5 and 6:\n%s", stderr)
	}
	again := readBoard(t, dirs[0])
	if len(again) != len(first) {
		t.Fatalf("%d trials after resume, want %d", len(again), len(first))
	}
	byName := map[string]studyEntry{}
	for _, en := range first {
		byName[en.Name] = en
	}
	for _, en := range again {
		was, _ := json.Marshal(byName[en.Name].Params)
		now, _ := json.Marshal(en.Params)
		if string(was) != string(now) || en.Status != byName[en.Name].Status {
			t.Errorf("%s: %s %s after resume, was %s %s", en.Name, now, en.Status, was, byName[en.Name].Status)
		}
	}
}

func TestSweepStudyBadInput(t *testing.T) {
	e := newSweepEnv(t, sweepSettings)
	exp := e.write("bad.yaml", "baseline: {params: {fusion.k: 60}}\nsampler: tpe\ntrials: 4\nspace:\n  fusion.k: {type: int, low: 5, high: 50}\npruning: {fraction: 0, reduction_factor: 3}\n")
	_, stderr, code := e.run("--experiments", exp)
	if code != 2 || !strings.Contains(stderr, "bad.yaml:6:21: pruning.fraction: must be > 0 and < 1 (got 0)") {
		t.Errorf("exit %d, stderr:\n%s", code, stderr)
	}
	if len(e.runDirs()) != 0 {
		t.Errorf("a bad experiment file created a run")
	}
}

// replayStudy is a TPE study over query-time parameters only, without
// pruning (a replayed trial runs every query, so a pruned live study would
// tell its sampler other scores).
const replayStudy = `{
  "seed": 7,
  "baseline": {"name": "baseline", "params": {"fusion.method": "rrf", "fusion.k": 60}},
  "sampler": "tpe",
  "trials": 8,
  "space": {
    "fusion.k": {"type": "int", "low": 1, "high": 100},
    "fusion.weights.bm25": {"type": "float", "low": 0, "high": 1}
  }
}`

// TestSweepSampledStudyReplay runs the same seeded TPE study through the
// real tune serve process live and with --mode replay: the same trials,
// parameters and scores, 2 backend restarts instead of one per trial, the
// best replayed trials verified; then a resumed replay run redoes only the
// trials whose records were dropped.
func TestSweepSampledStudyReplay(t *testing.T) {
	e := newSweepEnv(t, sweepSettings)
	exp := e.write("study.json", replayStudy)
	runOnce := func(args ...string) (string, string) {
		t.Helper()
		dir, _, stderr := e.newRun(t, append([]string{"--experiments", exp}, args...)...)
		return dir, stderr
	}
	liveDir, liveErr := runOnce("--mode", "live")
	replayDir, replayErr := runOnce("--mode", "replay", "--verify", "2")
	for _, want := range []string{"9 trials (0 resumed), 2 backend restarts", "collected candidate lists of 90 queries", "through apply + restart (the winner)"} {
		if !strings.Contains(replayErr, want) {
			t.Errorf("replay stderr lacks %q:\n%s", want, replayErr)
		}
	}
	if !strings.Contains(liveErr, "9 backend restarts") {
		t.Errorf("live stderr: want 9 backend restarts:\n%s", liveErr)
	}
	_, live := readLeaderboardTrials(t, liveDir)
	_, replay := readLeaderboardTrials(t, replayDir)
	liveBoard, replayBoard := readBoard(t, liveDir), readBoard(t, replayDir)
	if len(liveBoard) != 9 || len(replayBoard) != 9 {
		t.Fatalf("%d live and %d replay trials, want 9", len(liveBoard), len(replayBoard))
	}
	for i, en := range replayBoard {
		want, _ := json.Marshal(liveBoard[i].Params)
		got, _ := json.Marshal(en.Params)
		if en.Name != liveBoard[i].Name || string(got) != string(want) || math.Abs(replay[en.Name].Primary-live[en.Name].Primary) > 1e-9 {
			t.Errorf("rank %d: replay %s %s %.12g, live %s %s %.12g", i+1, en.Name, got, replay[en.Name].Primary, liveBoard[i].Name, want, live[liveBoard[i].Name].Primary)
		}
		if live[en.Name].Mode != "live" {
			t.Errorf("live %s: mode %q", en.Name, live[en.Name].Mode)
		}
		mode := "replay"
		if i < 2 { // --verify 2: the winner by apply + restart, the second by override
			mode = "verified"
		}
		if replay[en.Name].Mode != mode {
			t.Errorf("replay rank %d %s: mode %q, want %q", i+1, en.Name, replay[en.Name].Mode, mode)
		}
	}

	// Forget trials 8 and 9: replayed ones are the one-line
	// replayed-NNN.jsonl a study writes per trial, verified ones NNN.json.
	for _, n := range []string{"007", "008"} {
		removed := 0
		for _, f := range []string{n + ".json", "replayed-" + n + ".jsonl"} {
			if err := os.Remove(filepath.Join(replayDir, "trials", f)); err == nil {
				removed++
			}
		}
		if removed == 0 {
			t.Fatalf("trial %s: no record to remove", n)
		}
	}
	_, stderr, code := e.run("--experiments", exp, "--mode", "replay", "--resume", filepath.Base(replayDir))
	if code != 0 {
		t.Fatalf("resume: exit %d\n%s", code, stderr)
	}
	if !strings.Contains(stderr, "(7 resumed)") || strings.Contains(stderr, "trial 7/9") || !strings.Contains(stderr, "trial 8/9 tpe-007") {
		t.Errorf("resume should redo exactly trials 8 and 9:\n%s", stderr)
	}
	again := readBoard(t, replayDir)
	for i, en := range again {
		if en.Name != replayBoard[i].Name {
			t.Errorf("rank %d after resume: %s, was %s", i+1, en.Name, replayBoard[i].Name)
		}
	}
}

func TestSweepSharedReplayRefused(t *testing.T) {
	e := newSweepEnv(t, sweepSettings)
	exp := e.write("study.json", replayStudy)
	_, stderr, code := e.run("--experiments", exp, "--mode", "replay", "--parallel", "2")
	if code != 2 || !strings.Contains(stderr, "--mode replay: studies shared through --storage or --parallel run every trial live") {
		t.Errorf("exit %d, stderr:\n%s", code, stderr)
	}
	if len(e.runDirs()) != 0 {
		t.Errorf("a refused run created a run directory")
	}
}
