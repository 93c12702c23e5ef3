package main_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestLockSecondTuner starts a long sweep (with --apply-best, so it also
// holds the production config) and, while it runs, a second sweep on the
// same runs directory and a rollback of the same production config from
// another runs directory: both are refused at once (exit 1) with the
// holder's pid and start time, and record nothing.
func TestLockSecondTuner(t *testing.T) {
	corpus, err := filepath.Abs("../../experiments/demo/corpus.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	e := newSweepEnv(t, "")
	e.write("prod.yaml", "corpus:\n  path: "+corpus+"\n")
	e.write("tune.yaml", sweepSettings+"backend:\n  config: prod.yaml\n")
	exp := longExperiment(e)
	// --force: the lock is under test, not the promotion policy (on the
	// demo no k is significantly better than the baseline's).
	first, _, ferr := e.command("--experiments", exp, "--apply-best", "--force")
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	defer first.Process.Kill()
	waitFor(t, 2*time.Minute, "the first sweep's run", func() bool { return len(e.runDirs()) == 1 })
	pid := fmt.Sprintf("pid %d, started ", first.Process.Pid)
	stamp := regexp.MustCompile(`started \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ`)

	_, stderr, code := e.run("--experiments", exp)
	if code != 1 || !strings.Contains(stderr, "runs directory runs is in use by another tuner ("+pid) || !stamp.MatchString(stderr) {
		t.Errorf("second sweep: exit %d\n%s", code, stderr)
	}
	if n := len(e.runDirs()); n != 1 {
		t.Errorf("the refused sweep created a run (%d runs)", n)
	}
	_, stderr, code = e.run("rollback", "--runs-dir", "other-runs")
	if code != 1 || !strings.Contains(stderr, "production config ") || !strings.Contains(stderr, pid) {
		t.Errorf("rollback while a promotion may run: exit %d\n%s", code, stderr)
	}
	if err := first.Wait(); err != nil {
		t.Fatalf("first sweep: %v\n%s", err, ferr)
	}
	// Released at exit: the next tuner runs, without a stale-lock note.
	_, stderr, code = e.run("--experiments", exp)
	if code != 0 || strings.Contains(stderr, "stale") {
		t.Errorf("after the first sweep: exit %d\n%s", code, stderr)
	}
	if data, _ := os.ReadFile(filepath.Join(e.dir, "runs", ".lock")); len(data) != 0 {
		t.Errorf("lock file not emptied at exit: %s", data)
	}
}
