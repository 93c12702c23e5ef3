package sweeptest_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/fusiontune/fusiontune/cmd/tune/internal/sweeptest"
	"github.com/fusiontune/fusiontune/internal/inputerr"
)

// TestPromotionPolicyOnDemo: on the demo dataset, a sweep whose best trial
// leads the baseline by noise is refused promotion with the reason given
// (a failed run, not an input error; force overrides it, recorded in
// promotions.jsonl); a sweep whose best trial is significantly better is
// promoted; a guarded category that regresses blocks the promotion,
// unless within the tolerance.
func TestPromotionPolicyOnDemo(t *testing.T) {
	fixtures, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	corpus, err := filepath.Abs("../../../../experiments/demo/corpus.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	t.Chdir(t.TempDir())
	base := "runs_dir: runs\neval:\n  concurrency: 4\nbackend:\n  config: prod.yaml\n  engine:\n    dense:\n      model: hash-384\n"
	orig := []byte("# production engine config\ncorpus:\n  path: " + corpus + "\nfusion:\n  method: rrf\n  k: 60\n")
	for name, text := range map[string]string{"prod.yaml": string(orig), "tune.yaml": base + "promotion:\n  guarded: [direct]\n",
		"guarded.yaml": base + "promotion:\n  guarded: [misspelled]\n", "tolerant.yaml": base + "promotion:\n  guarded: [misspelled]\n  tolerance: 0.01\n"} {
		if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	const journal = "runs/promotions.jsonl"
	unchanged := func(what string) {
		t.Helper()
		if now, _ := os.ReadFile("prod.yaml"); !bytes.Equal(now, orig) {
			t.Fatalf("%s changed the production config", what)
		}
	}

	noise := sweeptest.Sweep(t, "tune.yaml", filepath.Join(fixtures, "not-significant.json"), sweeptest.Options{})
	_, log, err := sweeptest.TryPromote("tune.yaml", noise, "", false)
	var ie *inputerr.Error
	if err == nil || errors.As(err, &ie) {
		t.Fatalf("not significant: err = %v, want a refusal (exit 1)\n%s", err, log)
	}
	mustContain(t, "refusal", err.Error()+"\n"+log, `refusing to promote "k=40,w=bm25:0.6/dense:0.4"`,
		`is not significantly better than the baseline "baseline"`, "(95% interval) over 80 queries, p = ",
		"sig: paired randomization test of the mean, one comparison, no correction, α = 0.05", "--force")
	var board bytes.Buffer
	if err := noise.Leaderboard.Render(&board, "text"); err != nil {
		t.Fatal(err)
	}
	mustContain(t, "leaderboard", board.String(), "n.s.", "Δ baseline", "decision CI")
	unchanged("a refused promotion")
	if _, err := os.Stat(journal); err == nil {
		t.Error("a refused promotion was journaled")
	}

	// Force overrides the policy and says so in the journal.
	if _, log, err := sweeptest.TryPromote("tune.yaml", noise, "k=40,w=bm25:0.6/dense:0.4", true); err != nil {
		t.Fatalf("forced promotion: %v\n%s", err, log)
	} else {
		mustContain(t, "forced promotion log", log, "promotion policy overridden by --force")
	}
	data, _ := os.ReadFile(journal)
	mustContain(t, "promotions.jsonl", string(data), `"forced":true`, `"reason":"forced past the promotion policy: `, `"status":"ok"`)
	sweeptest.Rollback(t, "tune.yaml")

	significant := sweeptest.Sweep(t, "tune.yaml", filepath.Join(fixtures, "significant.json"), sweeptest.Options{})
	p, log, err := sweeptest.TryPromote("tune.yaml", significant, "", false)
	if err != nil {
		t.Fatalf("significant: %v\n%s", err, log)
	}
	var stdout bytes.Buffer
	p.WriteText(&stdout, &bytes.Buffer{})
	mustContain(t, "promotion", stdout.String(), "promoted hybrid")
	mustContain(t, "promotion log", log, `promotion policy: "hybrid" is significantly better than the baseline "baseline": Δ +0.04`)
	if now, _ := os.ReadFile("prod.yaml"); bytes.Equal(now, orig) {
		t.Fatal("production config unchanged after an allowed promotion")
	}
	sweeptest.Rollback(t, "tune.yaml")

	// A BM25-leaning hybrid loses a little on misspelled queries (0.4342
	// -> 0.4319): guarded with no tolerance, that blocks it; with 0.01 it
	// passes.
	guarded := sweeptest.Sweep(t, "guarded.yaml", filepath.Join(fixtures, "guarded.json"), sweeptest.Options{})
	if _, log, err := sweeptest.TryPromote("guarded.yaml", guarded, "", false); err == nil || errors.As(err, &ie) {
		t.Fatalf("guarded regression: err = %v, want a refusal\n%s", err, log)
	} else {
		mustContain(t, "guarded refusal", err.Error()+"\n"+log, `guarded category "misspelled" regresses by 0.0023`)
	}
	unchanged("a refused promotion")
	tolerant := sweeptest.Sweep(t, "tolerant.yaml", filepath.Join(fixtures, "guarded.json"), sweeptest.Options{})
	if _, log, err := sweeptest.TryPromote("tolerant.yaml", tolerant, "", false); err != nil {
		t.Fatalf("guarded within tolerance: %v\n%s", err, log)
	}
}
