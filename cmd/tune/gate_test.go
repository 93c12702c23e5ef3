package main_test

import (
	"path/filepath"
	"strings"
	"testing"
)

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
		"PASS MRR@10 >= 0.70 (0.7786)", "PASS NDCG@10[paraphrase] > 0.2 (")
	run := filepath.Base(e.runDirs()[0])

	e.write("fail.yaml", sweepSettings+`gates: ["MRR@10 >= 0.70", "routing[off_topic] == 1.0", "NDCG@10[paraphrase] >= 0.9", "Recall@3 >= 0.3", "P@1[nosuch] > 0"]`+"\n")
	stdout, stderr, code := e.run("gate", run, "--config", "fail.yaml")
	if code != 1 {
		t.Fatalf("failing gates: exit %d, want 1\n%s\n%s", code, stdout, stderr)
	}
	mustContain(t, "stdout", stdout, "PASS MRR@10 >= 0.70 (0.7786)", "FAIL routing[off_topic] == 1.0 (0.0000)",
		"FAIL NDCG@10[paraphrase] >= 0.9 (0.3878)", "PASS Recall@3 >= 0.3 (",
		`FAIL P@1[nosuch] > 0 (no category "nosuch" in this run)`)
	mustContain(t, "stderr", stderr, "3 of 5 gates failed on trial hybrid: routing[off_topic] == 1.0, NDCG@10[paraphrase] >= 0.9, P@1[nosuch] > 0")

	// A named trial; P@1 was not scored in that run.
	e.write("one.yaml", sweepSettings+`gates: ["MRR@10 >= 0.75", "P@1 >= 0.1"]`+"\n")
	stdout, _, code = e.run("gate", run, "baseline", "--config", "one.yaml")
	if code != 1 || !strings.Contains(stdout, "FAIL MRR@10 >= 0.75 (0.7270)") ||
		!strings.Contains(stdout, "FAIL P@1 >= 0.1 (P@1 was not measured in this run (add it to score.metrics))") {
		t.Errorf("tune gate RUN baseline: exit %d\n%s", code, stdout)
	}

	// The sweep's gate step fails the sweep.
	_, stderr, code = e.run("--experiments", exp, "--config", "fail.yaml")
	if code != 1 || !strings.Contains(stderr, "FAIL routing[off_topic] == 1.0") {
		t.Errorf("sweep with failing gates: exit %d\n%s", code, stderr)
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
		"badstats.yaml:4:10: stats.alpha: must be in (0, 1) (got 1.5)", "badstats.yaml:3:14: stats.resamples: must be >= 1000 (got 100)",
		"badstats.yaml:5:13: stats.metrics[0]: ", "badstats.yaml:7:14: promotion.tolerance: must be >= 0 (got -0.1)")
}
