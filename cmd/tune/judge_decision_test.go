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
	var out []poolLine
	data := readFile(t, filepath.Join(dir, "pool.jsonl"))
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
