package main_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/runs"
)

// readGates reads a run directory's gates.json.
func readGates(t *testing.T, dir string) runs.Gates {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, runs.GatesFile))
	if err != nil {
		t.Fatal(err)
	}
	var g runs.Gates
	if err := json.Unmarshal(data, &g); err != nil {
		t.Fatal(err)
	}
	return g
}

// TestGates: a sweep checks the settings' gates on its best trial (the
// metrics they name are scored), passes when all hold and exits 1 naming
// the failed ones; tune gate RUN [TRIAL] does the same on a recorded run;
// malformed gates are input errors naming the entry.
func TestGates(t *testing.T) {
	const pass = `gates: ["Recall@3 >= 0.30", "routing[direct] == 1.0", "MRR@10 >= 0.70", "NDCG@10[paraphrase] > 0.2"]` + "\n"
	e := newSweepEnv(t, sweepSettings+"backend:\n  engine:\n    dense:\n      model: hash-384\n"+pass)
	exp := policyFile(t, "significant.json")
	_, stderr, code := e.run("--experiments", exp)
	if code != 0 {
		t.Fatalf("passing gates: exit %d\n%s", code, stderr)
	}
	mustContain(t, "stderr", stderr, "gates on trial hybrid", "PASS Recall@3 >= 0.30 (", "PASS routing[direct] == 1.0 (1.0000)",
		"PASS MRR@10 >= 0.70 (0.7971)", "PASS NDCG@10[paraphrase] > 0.2 (")
	run := filepath.Base(e.runDirs()[0])
	// The gates are saved in the run directory and shown in its report.
	gates := readGates(t, e.runDirs()[0])
	if !gates.Pass || gates.Trial != "hybrid" || len(gates.Results) != 4 || !gates.Results[2].Pass || gates.Results[2].Gate != "MRR@10 >= 0.70" {
		t.Errorf("gates.json after a passing sweep: %+v", gates)
	}
	report, _ := os.ReadFile(filepath.Join(e.runDirs()[0], "report.html"))
	mustContain(t, "report.html", string(report), "Quality gates on hybrid:</strong> all 4 passed", "<li>PASS MRR@10 &gt;= 0.70 (0.7971)</li>")

	e.write("fail.yaml", sweepSettings+`gates: ["MRR@10 >= 0.70", "routing[off_topic] == 1.0", "NDCG@10[paraphrase] >= 0.9", "Recall@3 >= 0.3", "P@1[nosuch] > 0"]`+"\n")
	stdout, stderr, code := e.run("gate", run, "--config", "fail.yaml")
	if code != 1 {
		t.Fatalf("failing gates: exit %d, want 1\n%s\n%s", code, stdout, stderr)
	}
	mustContain(t, "stdout", stdout, "PASS MRR@10 >= 0.70 (0.7971)", "FAIL routing[off_topic] == 1.0 (0.0000)",
		"FAIL NDCG@10[paraphrase] >= 0.9 (0.4471)", "PASS Recall@3 >= 0.3 (",
		`FAIL P@1[nosuch] > 0 (no category "nosuch" in this run)`)
	mustContain(t, "stderr", stderr, "3 of 5 gates failed on trial hybrid: routing[off_topic] == 1.0, NDCG@10[paraphrase] >= 0.9, P@1[nosuch] > 0")
	if gates := readGates(t, e.runDirs()[0]); gates.Pass || len(gates.Failed()) != 3 || gates.Results[1].String() != "FAIL routing[off_topic] == 1.0 (0.0000)" {
		t.Errorf("gates.json after tune gate: %+v", gates)
	}

	// A named trial; P@1 was not scored in that run.
	e.write("one.yaml", sweepSettings+`gates: ["MRR@10 >= 0.75", "P@1 >= 0.1"]`+"\n")
	stdout, _, code = e.run("gate", run, "baseline", "--config", "one.yaml")
	if code != 1 || !strings.Contains(stdout, "FAIL MRR@10 >= 0.75 (0.7428)") ||
		!strings.Contains(stdout, "FAIL P@1 >= 0.1 (P@1 was not measured in this run (add it to score.metrics))") {
		t.Errorf("tune gate RUN baseline: exit %d\n%s", code, stdout)
	}

	// A sweep whose gate names a category no query has is refused before
	// it starts: that gate could only fail after the run.
	e.write("nosuch.yaml", sweepSettings+`gates: ["MRR@10 >= 0.70", "P@1[nosuch] > 0"]`+"\n")
	_, stderr, code = e.run("--experiments", exp, "--config", "nosuch.yaml")
	mustContain(t, "stderr", stderr, `nosuch.yaml:4:27: gates[1]: gate "P@1[nosuch] > 0": no evaluated query has category "nosuch" (categories: direct, misspelled, multi_intent, off_topic, paraphrase)`)
	if code != 2 || len(e.runDirs()) != 1 {
		t.Errorf("sweep with a gate on an unknown category: exit %d, %d runs; want 2 and no new run", code, len(e.runDirs()))
	}

	// The sweep's gate step fails the sweep and, with --apply-best, says
	// plainly that the gates stopped the promotion.
	e.write("failpromote.yaml", sweepSettings+"backend:\n  config: prod.yaml\n"+`gates: ["MRR@10 >= 0.70", "routing[off_topic] == 1.0", "NDCG@10[paraphrase] >= 0.9"]`+"\n")
	_, stderr, code = e.run("--experiments", exp, "--config", "failpromote.yaml", "--apply-best")
	if code != 1 || !strings.Contains(stderr, "FAIL routing[off_topic] == 1.0") {
		t.Errorf("sweep with failing gates: exit %d\n%s", code, stderr)
	}
	mustContain(t, "stderr", stderr, `tune: not promoted: gate routing[off_topic] == 1.0 failed (0.0000); gate NDCG@10[paraphrase] >= 0.9 failed (0.4471)`)
	if _, err := os.Stat(filepath.Join(e.dir, "prod.yaml")); err == nil {
		t.Error("--apply-best promoted past a failing gate")
	}

	// tune runs lists each run's experiment and gate status, and names the
	// measure of its best score.
	stdout, _, code = e.run("runs")
	if code != 0 {
		t.Fatalf("tune runs: exit %d", code)
	}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if len(lines) != 3 || strings.Join(strings.Fields(lines[0]), " ") != "RUN STATUS TRIALS EXPERIMENT GATES BEST MEASURE BEST TRIAL" {
		t.Fatalf("tune runs:\n%s", stdout)
	}
	// The first run's last check was tune gate RUN baseline.
	for i, want := range []string{"FAIL 2/2", "FAIL 2/3"} {
		if f := strings.Fields(lines[i+1]); len(f) < 7 || f[3] != "significant" || f[4]+" "+f[5] != want {
			t.Errorf("tune runs row %d: %q, want experiment significant and gates %q", i+1, lines[i+1], want)
		}
	}
	// ...in every format: JSON rows as above, CSV and Markdown with the
	// same columns.
	stdout, _, code = e.run("runs", "--format", "json")
	var rows []struct {
		Experiment, Gates, Measure string
		BestTrial                  string `json:"best_trial"`
		Best                       *float64
	}
	if err := json.Unmarshal([]byte(stdout), &rows); code != 0 || err != nil || len(rows) != 2 ||
		rows[0].Gates != "FAIL 2/2" || rows[1].Experiment != "significant" || rows[1].Best == nil || rows[1].BestTrial == "" || rows[1].Measure == "" {
		t.Errorf("tune runs --format json: exit %d, %v\n%s", code, err, stdout)
	}
	stdout, _, _ = e.run("runs", "--format", "csv")
	if !strings.HasPrefix(stdout, "run,status,trials,experiment,gates,best,measure,best_trial\n") || strings.Count(stdout, "\n") != 3 {
		t.Errorf("tune runs --format csv:\n%s", stdout)
	}
	stdout, _, _ = e.run("runs", "--format", "md")
	if !strings.HasPrefix(stdout, "| RUN | STATUS | TRIALS | EXPERIMENT | GATES | BEST | MEASURE | BEST TRIAL |\n| --- |") {
		t.Errorf("tune runs --format md:\n%s", stdout)
	}
	if _, stderr, code := e.run("runs", "--format", "yaml"); code != 2 || !strings.Contains(stderr, "runs: --format: want text, json, md or csv (got \"yaml\")") {
		t.Errorf("tune runs --format yaml: exit %d\n%s", code, stderr)
	}

	e.write("bad.yaml", `gates: ["Recall@3 => 0.8", "routing[billing] == one", "Foo@3 >= 1"]`+"\n")
	_, stderr, code = e.run("gate", run, "--config", "bad.yaml")
	if code != 2 {
		t.Errorf("bad gates: exit %d, want 2", code)
	}
	mustContain(t, "stderr", stderr, `bad.yaml:1:9: gates[0]: gate "Recall@3 => 0.8": want METRIC[CATEGORY] OP NUMBER`,
		`bad.yaml:1:28: gates[1]: gate "routing[billing] == one": threshold "one" is not a number`,
		`bad.yaml:1:55: gates[2]: gate "Foo@3 >= 1": metric "Foo@3": unknown measure "Foo"`)

	// Statistics and promotion settings: every problem at once, by
	// file:line:col and field.
	e.write("badstats.yaml", "stats:\n  correction: bonferroni\n  resamples: 100\n  alpha: 1.5\n  metrics: [NDCG@x]\npromotion:\n  tolerance: -0.1\n")
	_, stderr, code = e.run("gate", run, "--config", "badstats.yaml")
	if code != 2 {
		t.Errorf("bad stats settings: exit %d, want 2", code)
	}
	mustContain(t, "stderr", stderr, `badstats.yaml:2:15: stats.correction: must be holm, bh or none (got "bonferroni")`,
		"badstats.yaml:4:10: stats.alpha: must be in (0, 1) (got 1.5)", "badstats.yaml:3:14: stats.resamples: must be in [1000, 100000] (got 100)",
		"badstats.yaml:5:13: stats.metrics[0]: ", "badstats.yaml:7:14: promotion.tolerance: must be a number in [0, 1] (got -0.1)")
}
