package main_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestFaultStatsInterrupted is a fault of the statistics step through the real binary:
// a sweep whose statistics are as large as the settings allow stops
// on SIGINT once the analysis has begun, the run is
// marked interrupted with no leaderboard, and --resume redoes the
// analysis and writes it.
func TestFaultStatsInterrupted(t *testing.T) {
	if testing.Short() {
		t.Skip("a sweep with the largest statistics allowed")
	}
	e, cmd, stderr := startSweepIntoStats(t)
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	sent := time.Now()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if code := exitCodeOf(t, err); code != 1 {
			t.Errorf("exit %d after SIGINT, want 1\n%s", code, stderr())
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("tune still running 30 s after SIGINT during the statistics\n%s", stderr())
	}
	// The time it took is logged, not asserted (timings are for
	// benchmarks): exit 1 with the run interrupted proves the signal was
	// honoured, since an unhonoured one lets the analysis finish (exit 0).
	t.Logf("stopped %s after SIGINT", time.Since(sent).Round(time.Millisecond))
	dirs := e.runDirs()
	if len(dirs) != 1 {
		t.Fatalf("runs: %v", dirs)
	}
	if status, errText := readManifest(t, dirs[0]); status != "interrupted" || !strings.Contains(errText, "--resume") {
		t.Errorf("manifest status %q, error %q; want interrupted with how to resume", status, errText)
	}
	if _, err := os.Stat(filepath.Join(dirs[0], "leaderboard.json")); !os.IsNotExist(err) {
		t.Errorf("leaderboard.json of an interrupted analysis: %v", err)
	}
	if !strings.Contains(stderr(), "tune: interrupted: resume with") {
		t.Errorf("stderr does not say how to resume:\n%s", stderr())
	}
	_, errOut, code := e.run("--resume", filepath.Base(dirs[0]))
	if code != 0 {
		t.Fatalf("resume: exit %d\n%s", code, errOut)
	}
	if status, _ := readManifest(t, dirs[0]); status != "done" {
		t.Errorf("manifest status %q after resume, want done", status)
	}
	if _, err := os.Stat(filepath.Join(dirs[0], "leaderboard.json")); err != nil {
		t.Errorf("no leaderboard after resume: %v", err)
	}
}
