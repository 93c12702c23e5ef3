package main_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestSweepPreflight: a backend that cannot start on the baseline config
// (an openai embedder on a closed port: tune serve exits) stops the sweep
// before any trial, exit 2, naming the cause, the service log's path and
// its last lines; no run directory is left. A backend that starts is
// started once for the pre-flight and the baseline reuses it: no restart
// more than without a pre-flight.
func TestSweepPreflight(t *testing.T) {
	for _, args := range [][]string{nil, {"--parallel", "1"}} {
		t.Run("fails"+strings.Join(args, ""), func(t *testing.T) { preflightFails(t, args) })
	}
	t.Run("backend that cannot open", func(t *testing.T) {
		// A database refusing connections: the run fails before any
		// trial, as a failed pre-flight does, and leaves no directory.
		e := newSweepEnv(t, "runs_dir: runs\nbackend:\n  kind: postgres\n  postgres:\n    url: postgres://tuner@127.0.0.1:1/search\n")
		exp := e.write("exp.json", `{"baseline": {"params": {"fusion.k": 60}}, "experiments": [{"name": "k=20", "params": {"fusion.k": 20}}]}`)
		stdout, stderr, code := e.run("--experiments", exp)
		if code != 2 {
			t.Fatalf("exit %d, want 2\n%s\n%s", code, stdout, stderr)
		}
		if want := "tune: pre-flight: the backend did not become ready on the baseline config: open backend: postgres: "; !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
		if dirs := e.runDirs(); len(dirs) != 0 {
			t.Errorf("run directories left: %v", dirs)
		}
	})
	t.Run("reused by the baseline", func(t *testing.T) {
		e := newSweepEnv(t, sweepSettings)
		exp := e.write("exp.json", `{"baseline": {"params": {"fusion.k": 60}}, "experiments": [{"name": "k=20", "params": {"fusion.k": 20}}]}`)
		stdout, stderr, code := e.run("--experiments", exp, "--mode", "live")
		if code != 0 {
			t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
		}
		// The pre-flight's start, then k=20's: the baseline runs on the
		// service the pre-flight started.
		if !strings.Contains(stderr, "2 trials (0 resumed), 2 backend restarts") {
			t.Errorf("want 2 restarts:\n%s", stderr)
		}
		log, err := os.ReadFile(filepath.Join(e.runDirs()[0], "backend", "serve.log"))
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(string(log), "listening on"); n != 2 {
			t.Errorf("tune serve started %d times, want 2:\n%s", n, log)
		}
	})
}

// preflightFails runs a sweep (with args) whose backend cannot start.
func preflightFails(t *testing.T, args []string) {
	e := newSweepEnv(t, "runs_dir: runs\nbackend:\n  engine:\n    dense:\n      model: openai:nope\n      base_url: http://127.0.0.1:1\n      max_retries: 0\n")
	exp := e.write("exp.json", `{"baseline": {"params": {"fusion.k": 60}}, "experiments": [{"name": "k=20", "params": {"fusion.k": 20}}]}`)
	stdout, stderr, code := e.run(append([]string{"--experiments", exp}, args...)...)
	if code != 2 {
		t.Fatalf("exit %d, want 2\n%s\n%s", code, stdout, stderr)
	}
	for _, want := range []string{
		`tune: pre-flight: the backend did not become ready on the baseline config (trial "baseline"): ready: service exited before it was ready`,
		"service log ",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	m := regexp.MustCompile(`service log (\S+) \(last (\d+) of (\d+) lines\):`).FindStringSubmatch(stderr)
	if m == nil {
		t.Fatalf("no service log path on stderr:\n%s", stderr)
	}
	defer os.Remove(m[1])
	data, err := os.ReadFile(m[1])
	if err != nil {
		t.Fatalf("the named log: %v", err)
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if last := lines[len(lines)-1]; m[2] == "0" || !strings.Contains(stderr, "\n  "+last) {
		t.Errorf("stderr lacks the log's last line %q:\n%s", last, stderr)
	}
	if strings.Contains(stderr, "trial 1/") {
		t.Errorf("a trial ran after the failed pre-flight:\n%s", stderr)
	}
	if dirs := e.runDirs(); len(dirs) != 0 {
		t.Errorf("run directories left: %v", dirs)
	}
}
