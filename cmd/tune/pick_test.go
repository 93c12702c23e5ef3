package main_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPickTrialsAndRuns plays every way of naming a trial and a run on a
// real sweep: nothing (the best), #N (the leaderboard rank), a unique name
// prefix, an ambiguous one (exit 2 listing the candidates), a bare number
// (exit 2 with a hint), RUN:TRIAL in compare, a run by path, and global
// flags before the command.
func TestPickTrialsAndRuns(t *testing.T) {
	e := newSweepEnv(t, sweepSettings+"gates: [\"NDCG@10 >= 0\"]\n")
	exp := e.write("small.json", smallExperiment)
	run, _, _ := e.newRun(t, "--experiments", exp)
	var lb struct {
		Trials []struct {
			Name string `json:"name"`
		} `json:"trials"`
	}
	data, err := os.ReadFile(filepath.Join(run, "leaderboard.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &lb); err != nil || len(lb.Trials) != 5 {
		t.Fatalf("leaderboard: %v %d trials", err, len(lb.Trials))
	}
	rank := func(i int) string { return lb.Trials[i-1].Name }
	gatesOn := func(name string) string { return "gates on trial " + name + " (run " }
	abs, _ := filepath.Abs(run)
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string // on stdout (exit 0) or stderr
	}{
		{"best by default", []string{"gate", "latest"}, 0, gatesOn(rank(1))},
		{"rank", []string{"gate", "latest", "#2"}, 0, gatesOn(rank(2))},
		{"last rank", []string{"gate", "latest", "#5"}, 0, gatesOn(rank(5))},
		{"unique prefix", []string{"gate", "latest", "k=1"}, 0, gatesOn("k=10")},
		{"exact name", []string{"gate", "latest", "linear"}, 0, gatesOn("linear")},
		{"ambiguous prefix", []string{"gate", "latest", "b"}, 2, `ambiguous trial: 2 trials start with it: `},
		{"bare number", []string{"gate", "latest", "2"}, 2, `write #2 for the trial ranked 2`},
		{"rank past the end", []string{"gate", "latest", "#9"}, 2, `the leaderboard has 5 trials`},
		{"run by absolute path", []string{"gate", abs, "#1"}, 0, gatesOn(rank(1))},
		{"global flags first", []string{"--config", "tune.yaml", "--runs-dir", "runs", "gate", "latest", "#3"}, 0, gatesOn(rank(3))},
		{"leaderboard by absolute path", []string{"leaderboard", abs}, 0, rank(5)},
		{"compare RUN:#N against the best", []string{"compare", "latest:#2", "latest"}, 0, rank(2)},
		{"compare by prefix", []string{"compare", "latest:bm25", "latest:#1"}, 0, "bm25-only"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stdout, stderr, code := e.run(tc.args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\n%s\n%s", code, tc.code, stdout, stderr)
			}
			out := stdout
			if code != 0 {
				out = stderr
			}
			if !strings.Contains(out, tc.want) {
				t.Errorf("output lacks %q:\n%s", tc.want, out)
			}
		})
	}
	// The ambiguous prefix lists both candidates with their ranks.
	_, stderr, _ := e.run("gate", "latest", "b")
	for _, name := range []string{"baseline", "bm25-only"} {
		if !strings.Contains(stderr, " "+name) || !strings.Contains(stderr, "#") {
			t.Errorf("candidates lack %s:\n%s", name, stderr)
		}
	}
}

// TestCLIHabits: a mistyped command or flag is one line with a
// did-you-mean (no usage dump), and --resume without --experiments reads
// the run's own copy of its experiment file.
func TestCLIHabits(t *testing.T) {
	e := newSweepEnv(t, sweepSettings)
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"mistyped command", []string{"leaderbord"}, `tune: unknown command "leaderbord" (did you mean leaderboard?); run 'tune help' for the commands` + "\n"},
		{"mistyped command after flags", []string{"--runs-dir", "runs", "leaderbord"}, `tune: unknown command "leaderbord" (did you mean leaderboard?); run 'tune help' for the commands` + "\n"},
		{"unknown command", []string{"frobnicate"}, `tune: unknown command "frobnicate"; run 'tune help' for the commands` + "\n"},
		{"mistyped flag", []string{"gate", "--confg", "x.yaml"}, `tune: gate: unknown flag --confg (did you mean --config?); run 'tune gate --help' for its flags` + "\n"},
		{"mistyped sweep flag", []string{"--experiment", "x.json"}, `tune: sweep: unknown flag --experiment (did you mean --experiments?); run 'tune sweep --help' for its flags` + "\n"},
		{"unknown flag", []string{"runs", "--zzz"}, `tune: runs: unknown flag --zzz; run 'tune runs --help' for its flags` + "\n"},
		{"bad flag value", []string{"compare", "--k", "x", "a", "b"}, `tune: compare: invalid value "x" for flag -k: parse error; run 'tune compare --help' for its flags` + "\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stdout, stderr, code := e.run(tc.args...)
			if code != 2 || stdout != "" || stderr != tc.want {
				t.Errorf("exit %d, stdout %q, stderr:\n%s\nwant exit 2 and:\n%s", code, stdout, stderr, tc.want)
			}
		})
	}
	if stdout, stderr, code := e.run("gate", "--help"); code != 0 || stdout != "" || !strings.Contains(stderr, "Usage: tune gate") {
		t.Errorf("gate --help: exit %d\n%s", code, stderr)
	}

	// --resume without --experiments: the run's copy, not the shipped
	// shortlist (whose checksum differs).
	exp := e.write("small.json", smallExperiment)
	run, _, _ := e.newRun(t, "--experiments", exp)
	if err := os.Remove(exp); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := e.run("--resume", filepath.Base(run))
	if code != 0 {
		t.Fatalf("--resume without --experiments: exit %d\n%s", code, stderr)
	}
	if !strings.Contains(stderr, "(5 resumed)") || strings.Count(stdout, " ok (") != 5 {
		t.Errorf("resume did not reuse the run's 5 trials:\n%s\n%s", stdout, stderr)
	}
	if len(e.runDirs()) != 1 {
		t.Errorf("resume created a new run")
	}
}
