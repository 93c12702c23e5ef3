package main_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// policyEnv is a scratch directory with a production engine config on the
// demo corpus and settings that point backend.config at it.
func policyEnv(t *testing.T, extra string) (*sweepEnv, string, []byte) {
	t.Helper()
	corpus, err := filepath.Abs("../../experiments/demo/corpus.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	e := newSweepEnv(t, "")
	prod := e.write("prod.yaml", "# production engine config\ncorpus:\n  path: "+corpus+"\nfusion:\n  method: rrf\n  k: 60\n")
	orig, _ := os.ReadFile(prod)
	e.write("tune.yaml", sweepSettings+"backend:\n  config: prod.yaml\n  engine:\n    dense:\n      model: hash-384\n"+extra)
	return e, prod, orig
}

func policyFile(t *testing.T, name string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("testdata", "policy", name))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func mustContain(t *testing.T, what, text string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(text, w) {
			t.Errorf("%s lacks %q:\n%s", what, w, text)
		}
	}
}

// TestPromotionPolicyOnDemo: on the demo dataset, a sweep whose best trial
// leads the baseline by noise is refused promotion with the reason printed
// (and --force overrides it, recorded in promotions.jsonl); a sweep whose
// best trial is significantly better is promoted; a guarded category that
// regresses blocks the promotion.
func TestPromotionPolicyOnDemo(t *testing.T) {
	e, prod, orig := policyEnv(t, "promotion:\n  guarded: [direct]\n")
	journal := filepath.Join(e.dir, "runs", "promotions.jsonl")

	stdout, stderr, code := e.run("--experiments", policyFile(t, "not-significant.json"), "--apply-best")
	if code != 1 {
		t.Fatalf("not significant: exit %d, want 1\n%s\n%s", code, stdout, stderr)
	}
	mustContain(t, "stderr", stderr, `refusing to promote "k=40,w=bm25:0.6/dense:0.4"`,
		`is not significantly better than the baseline "baseline"`, "(95% interval) over 80 queries, p = ",
		"sig: paired randomization test of the mean, one comparison, no correction, α = 0.05", "--force")
	mustContain(t, "leaderboard", stdout, "n.s.", "Δ baseline [decision CI]")
	if now, _ := os.ReadFile(prod); !bytes.Equal(now, orig) {
		t.Fatal("a refused promotion changed the production config")
	}
	if _, err := os.Stat(journal); err == nil {
		t.Error("a refused promotion was journaled")
	}

	// --force overrides the policy and says so in the journal.
	run := filepath.Base(e.runDirs()[0])
	if _, stderr, code := e.run("apply", run, "k=40,w=bm25:0.6/dense:0.4", "--force"); code != 0 {
		t.Fatalf("apply --force: exit %d\n%s", code, stderr)
	} else {
		mustContain(t, "stderr", stderr, "promotion policy overridden by --force")
	}
	data, _ := os.ReadFile(journal)
	mustContain(t, "promotions.jsonl", string(data), `"forced":true`, `"reason":"forced past the promotion policy: `, `"status":"ok"`)
	if _, stderr, code := e.run("rollback"); code != 0 {
		t.Fatalf("rollback: exit %d\n%s", code, stderr)
	}

	stdout, stderr, code = e.run("--experiments", policyFile(t, "significant.json"), "--apply-best")
	if code != 0 {
		t.Fatalf("significant: exit %d\n%s\n%s", code, stdout, stderr)
	}
	mustContain(t, "stdout", stdout, "promoted hybrid")
	mustContain(t, "stderr", stderr, `promotion policy: "hybrid" is significantly better than the baseline "baseline": Δ +0.04`)
	if now, _ := os.ReadFile(prod); bytes.Equal(now, orig) {
		t.Fatal("production config unchanged after an allowed promotion")
	}
	if _, stderr, code := e.run("rollback"); code != 0 {
		t.Fatalf("rollback: exit %d\n%s", code, stderr)
	}

	// A BM25-leaning hybrid loses a little on misspelled queries (0.4342
	// -> 0.4319): guarded with no tolerance, that blocks it; with 0.01 it
	// passes.
	e.write("guarded.yaml", sweepSettings+"backend:\n  config: prod.yaml\n  engine:\n    dense:\n      model: hash-384\npromotion:\n  guarded: [misspelled]\n")
	_, stderr, code = e.run("--experiments", policyFile(t, "guarded.json"), "--apply-best", "--config", "guarded.yaml")
	if code != 1 {
		t.Fatalf("guarded regression: exit %d, want 1\n%s", code, stderr)
	}
	mustContain(t, "stderr", stderr, `guarded category "misspelled" regresses by 0.0023`)
	if now, _ := os.ReadFile(prod); !bytes.Equal(now, orig) {
		t.Fatal("a refused promotion changed the production config")
	}
	e.write("tolerant.yaml", sweepSettings+"backend:\n  config: prod.yaml\n  engine:\n    dense:\n      model: hash-384\npromotion:\n  guarded: [misspelled]\n  tolerance: 0.01\n")
	if _, stderr, code = e.run("--experiments", policyFile(t, "guarded.json"), "--apply-best", "--config", "tolerant.yaml"); code != 0 {
		t.Fatalf("guarded within tolerance: exit %d\n%s", code, stderr)
	}
}
