package main_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// startSweepIntoStats starts, through the real binary, a sweep whose
// statistics are as large as the settings allow, and returns once the
// trials have ended and the analysis has begun (the run's manifest says
// "analysing"; it lasts a good half second on a fast machine, with the
// precomputed tests it waits for); stderr reads what tune wrote so far.
func startSweepIntoStats(t *testing.T) (*sweepEnv, *exec.Cmd, func() string) {
	t.Helper()
	e := newSweepEnv(t, "runs_dir: runs\nstats:\n  resamples: 100000\n  permutations: 100000\n  metrics: [NDCG@10, NDCG@20, ERR@10, MAP@100, Recall@20, P@10]\n")
	errPath := filepath.Join(e.dir, "stderr.txt")
	errFile, err := os.Create(errPath)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { errFile.Close() })
	cmd := exec.Command(tuneBinary(t))
	cmd.Dir, cmd.Env, cmd.Stderr = e.dir, e.env, errFile
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	stderr := func() string { data, _ := os.ReadFile(errPath); return string(data) }
	waitFor(t, 3*time.Minute, "the sweep's analysis (its run analysing)", func() bool {
		dirs := e.runDirs()
		if len(dirs) != 1 {
			return false
		}
		var m struct{ Status string }
		data, err := os.ReadFile(filepath.Join(dirs[0], "manifest.json"))
		return err == nil && json.Unmarshal(data, &m) == nil && m.Status == "analysing"
	})
	return e, cmd, stderr
}

// TestFaultStatsKilled: tune SIGKILLed during the statistics (after the
// last trial, before leaderboard.json is written) leaves the run
// "analysing", not "done"; --resume runs no trial again (the trial records
// are untouched) and makes the statistics, leaderboard and report from the
// recorded trials, and only then is the run done.
func TestFaultStatsKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("a sweep with the largest statistics allowed")
	}
	e, cmd, stderr := startSweepIntoStats(t)
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	dirs := e.runDirs()
	if len(dirs) != 1 {
		t.Fatalf("runs: %v", dirs)
	}
	if _, err := os.Stat(filepath.Join(dirs[0], "leaderboard.json")); !os.IsNotExist(err) {
		t.Fatalf("leaderboard.json already written when killed (%v): the statistics were too fast to interrupt\n%s", err, stderr())
	}
	if status, _ := readManifest(t, dirs[0]); status != "analysing" {
		t.Errorf("manifest status %q after SIGKILL during the statistics, want analysing (not done without a leaderboard)", status)
	}
	trials := func() map[string]string {
		out := map[string]string{}
		files, _ := filepath.Glob(filepath.Join(dirs[0], "trials", "*"))
		for _, f := range files {
			fi, err := os.Stat(f)
			if err != nil {
				t.Fatal(err)
			}
			data, _ := os.ReadFile(f)
			out[filepath.Base(f)] = fi.ModTime().String() + string(data)
		}
		return out
	}
	before := trials()
	if len(before) == 0 {
		t.Fatal("no trial recorded")
	}
	_, errOut, code := e.run("--resume", filepath.Base(dirs[0]))
	if code != 0 {
		t.Fatalf("resume: exit %d\n%s", code, errOut)
	}
	after := trials()
	if len(after) != len(before) {
		t.Errorf("resume changed the trial files: %d before, %d after", len(before), len(after))
	}
	for name, b := range before {
		if after[name] != b {
			t.Errorf("resume rewrote %s: a trial ran again", name)
		}
	}
	if status, _ := readManifest(t, dirs[0]); status != "done" {
		t.Errorf("manifest status %q after resume, want done", status)
	}
	for _, name := range []string{"leaderboard.json", "report.html"} {
		if _, err := os.Stat(filepath.Join(dirs[0], name)); err != nil {
			t.Errorf("no %s after resume: %v", name, err)
		}
	}
}
