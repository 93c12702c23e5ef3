package main_test

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner/replay"
)

// robustGrid ships a hybrid over a baseline that gives BM25 almost no
// weight.
const robustGrid = `{"baseline": {"params": {"fusion.method": "rrf", "fusion.k": 60, "fusion.weights.bm25": 0.01}},
 "grid": {"fusion.k": [1, 10, 200], "fusion.weights.bm25": [0.5, 1]}}`

// TestJudgeRobustSwap: two file judges disagree about the documents only
// one of the top two trials ranks, and no other trial (x calls the
// leader's relevant and the runner-up's not, y the reverse). Under x the leader leads, under y
// (newer, so also the merged reference) the runner-up does: with
// promotion.require_robust_winner the verdict to ship becomes a verdict
// to keep the baseline saying why, tune judge robust exits 1, and tune
// apply refuses the best trial.
func TestJudgeRobustSwap(t *testing.T) {
	corpus, err := filepath.Abs("../../experiments/demo/corpus.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	e := newSweepEnv(t, sweepSettings+"labels: labels.db\npromotion: {require_robust_winner: true}\nbackend:\n  config: prod.yaml\n")
	e.write("prod.yaml", "corpus:\n  path: "+corpus+"\nfusion:\n  method: rrf\n  k: 60\n")
	exp := e.write("grid.json", robustGrid)
	dir, _, _ := e.newRun(t, "--experiments", exp, "--mode", "replay", "--split", "all")
	id := filepath.Base(dir)
	stdout, _ := e.mustRun(0, "judge", "robust", id, "--format", "json")
	var before struct {
		Robust    bool `json:"robust"`
		Reference struct {
			Top []string `json:"top"`
		} `json:"reference"`
		Verdict runs.Verdict `json:"verdict"`
	}
	if err := json.Unmarshal([]byte(stdout), &before); err != nil {
		t.Fatalf("%v: %s", err, stdout)
	}
	if !before.Robust || before.Verdict.Kind != runs.VerdictShip || len(before.Reference.Top) < 2 {
		t.Fatalf("before any label: %s", stdout)
	}
	first, second := before.Reference.Top[0], before.Reference.Top[1]
	only := onlyRanked(t, dir, first, second)
	var x, y, pool strings.Builder
	for _, p := range only {
		g := map[bool]int{true: 3, false: 0}[p.first]
		fmt.Fprintf(&x, "%s 0 %s %d\n", p.query, p.doc, g)
		fmt.Fprintf(&y, "%s 0 %s %d\n", p.query, p.doc, 3-g)
		fmt.Fprintf(&pool, `{"dataset":"demo","query":%q,"doc":%q,"priority":1,"trials":1,"best_rank":1}`+"\n", p.query, p.doc)
	}
	e.write("x.qrels", x.String())
	e.write("y.qrels", y.String())
	e.write("pool.jsonl", pool.String())
	e.mustRun(0, "judge", "run", "--pool", "pool.jsonl", "--judge", "file:x.qrels")
	e.mustRun(0, "judge", "run", "--pool", "pool.jsonl", "--judge", "file:y.qrels")
	stdout, stderr := e.mustRun(1, "judge", "robust", id)
	for _, want := range []string{
		fmt.Sprintf("winner under every label: %q", second),
		fmt.Sprintf("file:x.qrels (%d labels): the winner does not lead: %q does", len(only), first),
		"not robust: the winner depends on the judge",
		fmt.Sprintf("verdict: keep the baseline \"baseline\": the best trial %q depends on the judge (under file:x.qrels %q leads", first, first),
		"promotion.require_robust_winner requires a winner every judge agrees on",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	if !strings.Contains(stderr, "the winner depends on the judge (promotion.require_robust_winner)") {
		t.Errorf("stderr: %s", stderr)
	}
	// The promotion itself refuses the best trial, saying why.
	_, stderr, code := e.run("apply", id)
	if code != 1 || !strings.Contains(stderr, "the winner depends on the judge (under file:x.qrels") {
		t.Errorf("tune apply: exit %d, want 1 naming the judge\n%s", code, stderr)
	}
}

type rankedPair struct {
	query, doc string
	first      bool // ranked by the first trial only
}

// onlyRanked lists the unjudged documents of the recorded top hits that
// trial a, or trial b, ranks and no other trial of the run does.
func onlyRanked(t *testing.T, dir, a, b string) []rankedPair {
	t.Helper()
	run, err := runs.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	replay.EnsureDeriver(run)
	lb, err := run.ReadLeaderboard()
	if err != nil {
		t.Fatal(err)
	}
	rankedBy := map[[2]string]map[string]bool{} // (query, doc) -> trials
	for _, en := range lb.Trials {
		if en.Status != runs.StatusOK {
			continue
		}
		res, err := run.QueryResults(en.Index)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range res {
			for _, d := range r.Top {
				if d.Grade >= 0 {
					continue
				}
				k := [2]string{r.QueryID, d.DocID}
				if rankedBy[k] == nil {
					rankedBy[k] = map[string]bool{}
				}
				rankedBy[k][en.Name] = true
			}
		}
	}
	var out []rankedPair
	for k, by := range rankedBy {
		if len(by) == 1 && (by[a] || by[b]) {
			out = append(out, rankedPair{k[0], k[1], by[a]})
		}
	}
	slices.SortFunc(out, func(x, y rankedPair) int { return strings.Compare(x.query+" "+x.doc, y.query+" "+y.doc) })
	if len(out) == 0 {
		t.Fatalf("no unjudged document only %s or %s ranks", a, b)
	}
	return out
}
