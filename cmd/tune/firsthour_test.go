package main_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFirstHourBinaryBEIR plays the first hour on a binary-judged public
// collection, as a newcomer would with MEDLINE or SciFact: a BEIR folder
// (generated here, judged 0/1), tune init --dataset from another
// directory, tune check (the grade scale and the primary it implies), the
// starter sweep with its references. Every step is asserted on what tune
// prints.
func TestFirstHourBinaryBEIR(t *testing.T) {
	root := t.TempDir()
	data, home := filepath.Join(root, "data", "coll"), filepath.Join(root, "home")
	if err := os.MkdirAll(home, 0o755); err != nil {
		t.Fatal(err)
	}
	coll := writeBinaryBEIR(t, data, 7)
	n := newcomer{t: t, env: append(os.Environ(), "XDG_CACHE_HOME="+filepath.Join(root, "cache"))}

	// tune init --dataset, from another directory than the project's.
	stdout, stderr := n.must(0, home, "init", "--dataset", "../data/coll", "--dir", "../proj")
	proj := filepath.Join(root, "proj")
	if want := "../proj/tune.yaml\n../proj/experiment.yaml\n"; stdout != want {
		t.Errorf("init listed %q, want %q", stdout, want)
	}
	mustContain(t, "init's stderr", stderr,
		fmt.Sprintf("dataset: a BEIR folder, %d judged queries, %d judgments; corpus of %d documents\n", coll.Queries, coll.Judgments, coll.Docs),
		"grades: binary (0-1: relevant = 1)\n",
		"primary: default for binary judgments: NDCG@10\n",
		"next: run 'tune check experiment.yaml' in ../proj (the checks a sweep runs before its first trial), then run 'tune --experiments experiment.yaml' in ../proj\n")
	if _, err := os.Stat(filepath.Join(proj, "golden.yaml")); !os.IsNotExist(err) {
		t.Errorf("init wrote a skeleton golden set beside the user's dataset")
	}
	settings, err := os.ReadFile(filepath.Join(proj, "tune.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	mustContain(t, "tune.yaml", string(settings), `path: "../data/coll"`, `corpus: "../data/coll/corpus.jsonl"`,
		"      model: lsa-256 ", "  primary: default ", "#   binary (0-1: relevant = 1)")

	// tune check: the settings and the experiment file, as the sweep
	// starts, in the project and, with --config, from elsewhere.
	stdout, _ = n.must(0, proj, "check", "tune.yaml", "experiment.yaml")
	mustContain(t, "tune check", stdout,
		"ok tune.yaml (settings: backend embedded, dataset ../data/coll (30 queries), 0 gates)\n  grades: binary (0-1: relevant = 1)\n  primary: default for binary judgments: NDCG@10\n",
		"ok experiment.yaml (experiments: 12 trials in 1 index group)\n  checked as a sweep with tune.yaml starts: 30 queries (golden set ../data/coll, split all, grades binary (0-1: relevant = 1)), backend embedded\n  primary: default for binary judgments: NDCG@10\n")
	stdout, _ = n.must(0, home, "check", "--config", "../proj/tune.yaml", "../proj/experiment.yaml")
	mustContain(t, "tune check from elsewhere", stdout, "ok ../proj/experiment.yaml (experiments: 12 trials in 1 index group)")

	// The starter sweep: the baseline, both references and the grid.
	stdout, stderr = n.must(0, proj, "--experiments", "experiment.yaml")
	mustContain(t, "the sweep's log", stderr, "run ", ": 12 trials in 1 index groups, 30 queries (golden set ../data/coll, split all, grades binary (0-1: relevant = 1))\nprimary: default for binary judgments: NDCG@10\n",
		"12 trials (0 resumed)")
	if strings.Contains(stderr, "warning:") {
		t.Errorf("the starter sweep warns:\n%s", stderr)
	}
	mustContain(t, "the leaderboard", stdout, "| bm25 only ", "| dense only ", "| baseline", "primary: default for binary judgments: NDCG@10 (ceiling 1.0000")

	// The verdict names what the rule and the numbers say, worked out
	// here by hand from the leaderboard's JSON: the best NDCG@10 among the
	// trials significantly better than the baseline (a single retriever
	// when that trial is a reference), else the baseline.
	stdout, _ = n.must(0, proj, "leaderboard", "--format", "json")
	var lb struct {
		Baseline string `json:"baseline"`
		Trials   []struct {
			Name      string             `json:"name"`
			Status    string             `json:"status"`
			Scorecard map[string]float64 `json:"scorecard"`
			Params    map[string]any     `json:"params"`
			Vs        *struct {
				Delta       float64 `json:"delta"`
				Significant bool    `json:"significant"`
			} `json:"vs_baseline"`
		} `json:"trials"`
		Verdict struct {
			Kind, Trial, Line string
		} `json:"verdict"`
	}
	if err := json.Unmarshal([]byte(stdout), &lb); err != nil {
		t.Fatal(err)
	}
	want, wantKind, best := lb.Baseline, "keep", -1.0
	for _, tr := range lb.Trials {
		if tr.Status != "ok" || tr.Vs == nil || !tr.Vs.Significant || tr.Vs.Delta <= 0 {
			continue
		}
		if v := tr.Scorecard["NDCG@10"]; v > best {
			best, want, wantKind = v, tr.Name, "ship"
			if rs, ok := tr.Params["retrievers"].([]any); ok && len(rs) == 1 {
				wantKind = "single-retriever"
			}
		}
	}
	if lb.Verdict.Trial != want || lb.Verdict.Kind != wantKind {
		t.Errorf("verdict %s %q, want %s %q: %s", lb.Verdict.Kind, lb.Verdict.Trial, wantKind, want, lb.Verdict.Line)
	}
	// The text leaderboard fits 120 characters: its notes wrap, a broken
	// line going on two spaces in; joined up, the verdict is its last line.
	stdout, _ = n.must(0, proj, "leaderboard")
	if w := widest(stdout); w > 120 {
		t.Errorf("the text leaderboard is %d characters wide, want at most 120:\n%s", w, stdout)
	}
	mustContain(t, "the text leaderboard", strings.ReplaceAll(stdout, "\n  ", " "), "verdict: "+lb.Verdict.Line+"\n")
}
