package main_test

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// TestJudgePoolDecision pools a replayed demo grid's pairs that can change
// the promotion decision, labels them all irrelevant through a qrels file
// round after round, and checks that the decision then settles and that
// the decision pool is empty; the depth flags are refused with it.
func TestJudgePoolDecision(t *testing.T) {
	e := newSweepEnv(t, sweepSettings+"labels: labels.db\n")
	exp := e.write("grid.json", uiGrid)
	dir, _, _ := e.newRun(t, "--experiments", exp, "--mode", "replay", "--split", "all")
	id := filepath.Base(dir)
	_, stderr := e.mustRun(2, "judge", "pool", id, "--strategy", "decision", "--trials", "top:3")
	if !strings.Contains(stderr, "--trials: not with --strategy decision") {
		t.Fatalf("--trials with decision: %s", stderr)
	}
	var qrels strings.Builder
	for round := 1; ; round++ {
		stdout, _ := e.mustRun(0, "judge", "pool", id, "--strategy", "decision", "--out", "pool.jsonl")
		if !strings.HasPrefix(stdout, "decision: ") || !strings.Contains(stdout, " under the worst and best labelling of ") {
			t.Fatalf("round %d: %s", round, stdout)
		}
		pairs := readPool(t, e.dir)
		if strings.Contains(stdout, "settled: no unjudged pair can change the decision") {
			if len(pairs) != 0 {
				t.Fatalf("settled with %d pairs pooled", len(pairs))
			}
			if round == 1 {
				t.Fatal("settled before any label")
			}
			return
		}
		if len(pairs) == 0 || !strings.Contains(stdout, fmt.Sprintf("open: %d unjudged pairs can change the decision", len(pairs))) {
			t.Fatalf("round %d: open with %d pairs pooled: %s", round, len(pairs), stdout)
		}
		if round == 10 {
			t.Fatalf("not settled after %d rounds: %s", round, stdout)
		}
		for _, p := range pairs {
			fmt.Fprintf(&qrels, "%s 0 %s 0\n", p.Query, p.Doc)
		}
		e.write("zero.qrels", qrels.String())
		out, _ := e.mustRun(0, "judge", "run", "--pool", "pool.jsonl", "--judge", "file:zero.qrels")
		if !strings.Contains(out, fmt.Sprintf("appended %d labels", len(pairs))) {
			t.Fatalf("round %d: %s", round, out)
		}
	}
}

type poolLine struct {
	Query    string  `json:"query"`
	Doc      string  `json:"doc"`
	Priority float64 `json:"priority"`
}

func readPool(t *testing.T, dir string) []poolLine {
	t.Helper()
	return readPoolFile(t, dir, "pool.jsonl")
}

func readPoolFile(t *testing.T, dir, name string) []poolLine {
	t.Helper()
	var out []poolLine
	data := readFile(t, filepath.Join(dir, name))
	for _, l := range strings.Split(strings.TrimSpace(data), "\n") {
		if l == "" {
			continue
		}
		var p poolLine
		if err := json.Unmarshal([]byte(l), &p); err != nil {
			t.Fatal(err)
		}
		out = append(out, p)
	}
	return out
}

// TestJudgePoolDeeper pools the best trial (replayed, then verified live)
// beyond the top 20 the run records: its candidate lists are fused again to --depth 50, so the
// pool reaches more than 20 of each ranking's 50 ranks, and none of the
// pairs it adds is one the golden set judges.
func TestJudgePoolDeeper(t *testing.T) {
	e := newSweepEnv(t, sweepSettings)
	exp := e.write("grid.json", uiGrid)
	dir, _, _ := e.newRun(t, "--experiments", exp, "--mode", "replay", "--split", "all")
	id := filepath.Base(dir)
	e.mustRun(0, "judge", "pool", id, "--trials", "top:1", "--depth", "20", "--out", "p20.jsonl")
	stdout, _ := e.mustRun(0, "judge", "pool", id, "--trials", "top:1", "--depth", "50", "--out", "p50.jsonl", "--format", "json")
	var s struct {
		Pairs       int     `json:"pairs"`
		JudgedIfAll float64 `json:"judged_if_all"`
	}
	if err := json.Unmarshal([]byte(stdout), &s); err != nil {
		t.Fatalf("%v: %s", err, stdout)
	}
	// Judged@50 of the recorded top 20 alone is at most 20/50.
	if s.JudgedIfAll <= 0.4 {
		t.Errorf("Judged@50 if all were judged %.4f: the pool did not reach beyond the recorded top 20", s.JudgedIfAll)
	}
	p20 := map[string]bool{}
	for _, p := range readPoolFile(t, e.dir, "p20.jsonl") {
		p20[p.Query+" "+p.Doc] = true
	}
	p50 := readPoolFile(t, e.dir, "p50.jsonl")
	if len(p50) != s.Pairs || len(p50) <= len(p20) {
		t.Fatalf("depth 50 pooled %d pairs, depth 20 %d", len(p50), len(p20))
	}
	gold := goldPairs(t)
	for _, p := range p50 {
		if gold[p.Query+" "+p.Doc] {
			t.Errorf("pair %s %s is judged by the golden set", p.Query, p.Doc)
		}
	}
}
