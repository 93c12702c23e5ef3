package sweeptest_test

import (
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/cmd/tune/internal/sweeptest"
	"github.com/fusiontune/fusiontune/internal/inputerr"
	"github.com/fusiontune/fusiontune/tuner"
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
	Mode     string         `json:"mode"`
	Primary  float64        `json:"primary"`
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

// studyDir is a working directory with tune.yaml and the experiment file
// study.json (exp).
func studyDir(t *testing.T, exp string) {
	t.Helper()
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	t.Chdir(t.TempDir())
	writeFiles(t, map[string]string{"tune.yaml": "runs_dir: runs\neval:\n  concurrency: 4\n", "study.json": exp})
}

// TestSweepSampledStudy runs a sampled study with pruning through the
// embedded engine (real restarts), then drops its last two trial records
// and resumes: the resumed run redoes only those two, with the same
// parameters.
func TestSweepSampledStudy(t *testing.T) {
	studyDir(t, studyExperiment)
	r := sweeptest.Sweep(t, "tune.yaml", "study.json", sweeptest.Options{Mode: "live"})
	mustContain(t, "log", r.Log, "then 5 random trials (seed 5), pruning from 25% of the queries, η=2", "trial 6/6 random-005")
	board := leaderboardText(t, r)
	first := readBoard(t, r.Run.Dir)
	sampled := 0
	for _, en := range first {
		if en.Sampler == "random" {
			sampled++
			if !strings.Contains(board, en.Name) {
				t.Errorf("leaderboard lacks %s", en.Name)
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
		if err := os.Remove(filepath.Join(r.Run.Dir, "trials", n+".json")); err != nil {
			t.Fatal(err)
		}
	}
	resumed := sweeptest.Sweep(t, "tune.yaml", "study.json", sweeptest.Options{Mode: "live", Resume: r.Run.ID()})
	if !strings.Contains(resumed.Log, "(4 resumed)") || strings.Contains(resumed.Log, "trial 4/6") || !strings.Contains(resumed.Log, "trial 5/6 random-004") {
		t.Errorf("resume should redo exactly trials 5 and 6:\n%s", resumed.Log)
	}
	again := readBoard(t, r.Run.Dir)
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

// TestSweepStudyBadInput: a malformed study is the user's input error
// naming file:line:col, before any run directory exists.
func TestSweepStudyBadInput(t *testing.T) {
	studyDir(t, "")
	writeFiles(t, map[string]string{"bad.yaml": "baseline: {params: {fusion.k: 60}}\nsampler: tpe\ntrials: 4\nspace:\n  fusion.k: {type: int, low: 5, high: 50}\npruning: {fraction: 0, reduction_factor: 3}\n"})
	_, err := sweeptest.Try("tune.yaml", "bad.yaml", sweeptest.Options{})
	var ie *inputerr.Error
	if !errors.As(err, &ie) || !strings.Contains(err.Error(), "bad.yaml:6:21: pruning.fraction: must be > 0 and < 1 (got 0)") {
		t.Errorf("err = %v, want the input error naming bad.yaml:6:21", err)
	}
	if entries, _ := os.ReadDir("runs"); len(entries) != 0 {
		t.Errorf("a bad experiment file created a run: %v", entries)
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
// served engine live and replayed: the same trials, parameters and
// scores, 2 backend restarts instead of one per trial, the best replayed
// trials verified; then a resumed replay run redoes only the trials whose
// records were dropped.
func TestSweepSampledStudyReplay(t *testing.T) {
	studyDir(t, replayStudy)
	live := sweeptest.Sweep(t, "tune.yaml", "study.json", sweeptest.Options{Mode: "live", Verify: tuner.DefaultVerify})
	replay := sweeptest.Sweep(t, "tune.yaml", "study.json", sweeptest.Options{Mode: "replay", Verify: 2})
	mustContain(t, "replay log", replay.Log, "9 trials (0 resumed), 2 backend restarts", "collected candidate lists of 90 queries", "through apply + restart (the winner)")
	mustContain(t, "live log", live.Log, "9 backend restarts")
	liveBoard, replayBoard := readBoard(t, live.Run.Dir), readBoard(t, replay.Run.Dir)
	if len(liveBoard) != 9 || len(replayBoard) != 9 {
		t.Fatalf("%d live and %d replay trials, want 9", len(liveBoard), len(replayBoard))
	}
	liveByName := map[string]studyEntry{}
	for _, en := range liveBoard {
		liveByName[en.Name] = en
	}
	for i, en := range replayBoard {
		want, _ := json.Marshal(liveBoard[i].Params)
		got, _ := json.Marshal(en.Params)
		if en.Name != liveBoard[i].Name || string(got) != string(want) || math.Abs(en.Primary-liveByName[en.Name].Primary) > 1e-9 {
			t.Errorf("rank %d: replay %s %s %.12g, live %s %s %.12g", i+1, en.Name, got, en.Primary, liveBoard[i].Name, want, liveByName[en.Name].Primary)
		}
		if liveByName[en.Name].Mode != "live" {
			t.Errorf("live %s: mode %q", en.Name, liveByName[en.Name].Mode)
		}
		mode := "replay"
		if i < 2 { // verify 2: the winner by apply + restart, the second by override
			mode = "verified"
		}
		if en.Mode != mode {
			t.Errorf("replay rank %d %s: mode %q, want %q", i+1, en.Name, en.Mode, mode)
		}
	}

	// Forget trials 8 and 9: replayed ones are the one-line
	// replayed-NNN.jsonl a study writes per trial, verified ones NNN.json.
	for _, n := range []string{"007", "008"} {
		removed := 0
		for _, f := range []string{n + ".json", "replayed-" + n + ".jsonl"} {
			if err := os.Remove(filepath.Join(replay.Run.Dir, "trials", f)); err == nil {
				removed++
			}
		}
		if removed == 0 {
			t.Fatalf("trial %s: no record to remove", n)
		}
	}
	resumed := sweeptest.Sweep(t, "tune.yaml", "study.json", sweeptest.Options{Mode: "replay", Verify: tuner.DefaultVerify, Resume: replay.Run.ID()})
	if !strings.Contains(resumed.Log, "(7 resumed)") || strings.Contains(resumed.Log, "trial 7/9") || !strings.Contains(resumed.Log, "trial 8/9 tpe-007") {
		t.Errorf("resume should redo exactly trials 8 and 9:\n%s", resumed.Log)
	}
	again := readBoard(t, replay.Run.Dir)
	for i, en := range again {
		if en.Name != replayBoard[i].Name {
			t.Errorf("rank %d after resume: %s, was %s", i+1, en.Name, replayBoard[i].Name)
		}
	}
}
