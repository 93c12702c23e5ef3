package main_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPlan: tune plan budgets judged queries for --effect and the standard
// effects, from the prior without a run (golden stdout) and from a run's
// own variance and family; a bad --effect or a run without a power record
// is an input error (exit 2).
func TestPlan(t *testing.T) {
	e := newSweepEnv(t, sweepSettings+"backend:\n  engine:\n    dense:\n      model: hash-384\n")
	stdout, stderr, code := e.run("plan", "--effect", "0.02")
	if code != 0 {
		t.Fatalf("plan: exit %d\n%s", code, stderr)
	}
	golden := filepath.Join("testdata", "plan", "prior.stdout")
	if *update {
		if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, []byte(stdout), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if stdout != string(want) {
		t.Errorf("plan stdout differs from %s:\n%s", golden, stdout)
	}

	for _, tc := range []struct{ name, effect, want string }{
		{"zero", "0", `--effect: must be a number in (0, 1] (got "0")`},
		{"above 1", "1.5", `--effect: must be a number in (0, 1] (got "1.5")`},
		{"not a number", "x", `--effect: must be a number in (0, 1] (got "x")`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, stderr, code := e.run("plan", "--effect", tc.effect)
			if code != 2 || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, stderr %q, want 2 and %q", code, stderr, tc.want)
			}
		})
	}

	// From a run: its sd, its family (two trials, one compared).
	if _, stderr, code := e.run("--experiments", policyFile(t, "significant.json")); code != 0 {
		t.Fatalf("sweep: exit %d\n%s", code, stderr)
	} else if !strings.Contains(stderr, "power: minimum detectable effect ") {
		t.Errorf("sweep stderr lacks the power line:\n%s", stderr)
	}
	run := filepath.Base(e.runDirs()[0])
	stdout, stderr, code = e.run("plan", run, "--effect", "0.04")
	if code != 0 {
		t.Fatalf("plan RUN: exit %d\n%s", code, stderr)
	}
	mustContain(t, "plan RUN", stdout, "from run "+run+": sd ", "paired differences hybrid vs baseline", "+0.0400", "<- asked", "+0.0100")
}
