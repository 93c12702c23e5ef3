package main_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestInitThenSweep: tune init --corpus writes tune.yaml, experiment.yaml
// and golden.yaml; the experiment file passes tune check; the skeleton
// fails it naming every placeholder and the sweep refuses it; once the test
// writes the queries, a sweep with the written files runs. A second init
// overwrites nothing (exit 2 naming the files).
func TestInitThenSweep(t *testing.T) {
	demo, err := os.ReadFile("../../experiments/demo/corpus.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	e := newSweepEnv(t, "")
	if err := os.Mkdir(filepath.Join(e.dir, "data"), 0o755); err != nil {
		t.Fatal(err)
	}
	e.write("data/corpus.jsonl", string(demo))
	stdout, stderr, code := e.run("init", "--corpus", "data/corpus.jsonl", "--dir", "proj")
	if code != 0 {
		t.Fatalf("init: exit %d\n%s", code, stderr)
	}
	proj := filepath.Join(e.dir, "proj")
	for _, f := range []string{"tune.yaml", "experiment.yaml", "golden.yaml"} {
		if !strings.Contains(stdout, filepath.Join("proj", f)) {
			t.Errorf("init did not list %s:\n%s", f, stdout)
		}
	}
	settings, _ := os.ReadFile(filepath.Join(proj, "tune.yaml"))
	mustContain(t, "tune.yaml", string(settings), `corpus: "../data/corpus.jsonl"`, "path: golden.yaml", "# stats:", "# gates:", "# promotion:")

	if _, stderr, code := e.run("check", "proj/experiment.yaml"); code != 0 {
		t.Fatalf("tune check experiment.yaml: exit %d\n%s", code, stderr)
	}
	_, stderr, code = e.run("check", "--corpus", "data/corpus.jsonl", "proj/golden.yaml")
	if code != 2 || strings.Count(stderr, "is still the placeholder tune init wrote") != 3 || !strings.Contains(stderr, "proj/golden.yaml:9:5: queries[0].query:") {
		t.Fatalf("tune check of the skeleton: exit %d, want 2 naming the 3 placeholders\n%s", code, stderr)
	}

	sweep := func() (string, string, int) {
		cmd, stdout, stderr := e.command("--experiments", "experiment.yaml")
		cmd.Dir = proj
		err := cmd.Run()
		if err != nil && cmd.ProcessState == nil {
			t.Fatal(err)
		}
		return stdout.String(), stderr.String(), cmd.ProcessState.ExitCode()
	}
	if _, stderr, code := sweep(); code != 2 || !strings.Contains(stderr, "still the placeholder") {
		t.Fatalf("sweep on the skeleton: exit %d, want 2\n%s", code, stderr)
	}

	// Write the queries: each judged document's opening words.
	golden := filepath.Join(proj, "golden.yaml")
	data, _ := os.ReadFile(golden)
	filled := regexp.MustCompile(`"TODO: a question document \S+ answers \(it begins \\"([^.\\]+)(?:[^"\\]|\\.)*"`).ReplaceAllString(string(data), `"$1"`)
	if strings.Contains(filled, `query: "TODO:`) {
		t.Fatalf("the test did not fill every placeholder:\n%s", filled)
	}
	if err := os.WriteFile(golden, []byte(filled), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, stderr, code := e.run("check", "--corpus", "data/corpus.jsonl", "proj/golden.yaml"); code != 0 {
		t.Fatalf("tune check of the filled golden set: exit %d\n%s", code, stderr)
	}
	stdout, stderr, code = sweep()
	if code != 0 {
		t.Fatalf("sweep with the written files: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stderr, "12 trials (0 resumed)") || strings.Contains(stdout, "failed") {
		t.Errorf("want 12 trials, none failed:\n%s\n%s", stdout, stderr)
	}

	before, _ := os.ReadFile(filepath.Join(proj, "tune.yaml"))
	_, stderr, code = e.run("init", "--dir", "proj")
	if code != 2 || !strings.Contains(stderr, "not overwriting proj/tune.yaml, proj/experiment.yaml, proj/golden.yaml") {
		t.Errorf("second init: exit %d\n%s", code, stderr)
	}
	if after, _ := os.ReadFile(filepath.Join(proj, "tune.yaml")); string(after) != string(before) {
		t.Error("second init changed tune.yaml")
	}
}
