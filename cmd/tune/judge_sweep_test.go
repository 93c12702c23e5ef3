package main_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/experiments/labels"
	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner"
)

// judgeGrid is a small replayed RRF grid on the demo.
const judgeGrid = `{
  "baseline": {"params": {"fusion.method": "rrf", "fusion.k": 60}},
  "grid": {"fusion.k": [1, 60], "fusion.weights.bm25": [0.2, 0.8]}
}`

// poolOf pools a recorded run through the library (what tune judge pool
// prints).
func poolOf(t *testing.T, dir string) []string {
	t.Helper()
	run, err := runs.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	p, err := tuner.PoolRun(run, tuner.PoolOptions{Trials: "all"})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, pr := range p.Pairs {
		out = append(out, pr.Query+" "+pr.Doc)
	}
	return out
}

type rescoredLB struct {
	Trials []struct {
		Name       string             `json:"name"`
		Status     string             `json:"status"`
		Scorecard  map[string]float64 `json:"scorecard"`
		JudgedOnly map[string]float64 `json:"judged_only"`
	} `json:"trials"`
	Warnings []string       `json:"warnings"`
	Rescored *runs.Rescored `json:"rescored"`
}

func readRescored(t *testing.T, dir string) rescoredLB {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "leaderboard.json"))
	if err != nil {
		t.Fatal(err)
	}
	var lb rescoredLB
	if err := json.Unmarshal(data, &lb); err != nil {
		t.Fatal(err)
	}
	return lb
}

// TestSweepJudgeFileAndLabels: a demo sweep pools its unjudged hits; half
// of them go into a qrels file; a sweep with --judge file:that file judges
// the leading trials' hits within the budget, stores the labels in
// dataset.labels and records rounds, labels and the orders before and
// after in leaderboard.json; a third sweep merges the stored labels into
// its judgments (provenance in the snapshot) and so sees more of its top
// 10 judged.
func TestSweepJudgeFileAndLabels(t *testing.T) {
	e := newSweepEnv(t, sweepSettings+"dataset:\n  labels: labels.db\n")
	exp := e.write("grid.json", judgeGrid)
	first, _, _ := e.newRun(t, "--experiments", exp, "--mode", "replay", "--split", "all")
	lb0 := readRescored(t, first)
	for _, tr := range lb0.Trials {
		if tr.Status == "ok" && (tr.JudgedOnly["NDCG@10"] <= 0 || tr.JudgedOnly["P@10"] <= 0) {
			t.Errorf("trial %s: judged-only values %v", tr.Name, tr.JudgedOnly)
		}
	}
	pairs := poolOf(t, first)
	if len(pairs) < 20 {
		t.Fatalf("pool of %d pairs: the demo's tops should be mostly unjudged", len(pairs))
	}
	var qrels strings.Builder
	for i, p := range pairs {
		if i%2 == 0 {
			f := strings.Fields(p)
			fmt.Fprintf(&qrels, "%s 0 %s 2\n", f[0], f[1])
		}
	}
	e.write("hidden.qrels", qrels.String())

	const budget = 40
	second, stdout, stderr := e.newRun(t, "--experiments", exp, "--mode", "replay", "--split", "all",
		"--judge", "file:hidden.qrels", "--judge-budget", fmt.Sprint(budget), "--judge-target", "1")
	lb := readRescored(t, second)
	r := lb.Rescored
	if r == nil {
		t.Fatalf("no rescored section\nstdout:\n%s\nstderr:\n%s", stdout, stderr)
	}
	asked, got := 0, 0
	for _, rd := range r.Rounds {
		asked += rd.Asked
		got += rd.Labels
	}
	if len(r.Rounds) == 0 || asked > budget || got == 0 || r.Judge != "file:hidden.qrels" || r.Stopped != "budget" {
		t.Errorf("rescored: %d rounds, %d asked (budget %d), %d labels, judge %q, stopped %q", len(r.Rounds), asked, budget, got, r.Judge, r.Stopped)
	}
	if len(r.Before) != 5 || len(r.After) != 5 || r.After[0].Coverage <= 0 {
		t.Errorf("before %v after %v", r.Before, r.After)
	}
	if !strings.Contains(stdout, "rescored by judge file:hidden.qrels") || !strings.Contains(stderr, "judge file:hidden.qrels: round 1:") {
		t.Errorf("no rescored line on stdout or round line on stderr:\n%s\n%s", stdout, stderr)
	}
	st, err := labels.Open(context.Background(), filepath.Join(e.dir, "labels.db"))
	if err != nil {
		t.Fatal(err)
	}
	stored, err := st.Latest(context.Background(), "demo")
	st.Close()
	if err != nil {
		t.Fatal(err)
	}
	if len(stored) != got {
		t.Errorf("store holds %d labels of dataset demo, the loop reports %d", len(stored), got)
	}

	third, _, stderr := e.newRun(t, "--experiments", exp, "--mode", "replay", "--split", "all")
	if !strings.Contains(stderr, fmt.Sprintf("%d file, 0 implicit", got)) {
		t.Errorf("no provenance line on stderr:\n%s", stderr)
	}
	var info struct {
		ID     string           `json:"dataset_id"`
		Labels tuner.LabelsInfo `json:"labels"`
	}
	data, err := os.ReadFile(filepath.Join(third, "golden.json.sha256.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &info); err != nil {
		t.Fatal(err)
	}
	if info.ID != "demo" || info.Labels.Provenance.File != got || info.Labels.Provenance.Gold == 0 || info.Labels.URL != "labels.db" {
		t.Errorf("snapshot: %+v", info)
	}
	lb3 := readRescored(t, third)
	for i, tr := range lb3.Trials {
		if tr.Status == "ok" && tr.Scorecard["Judged@10"] < lb0.Trials[i].Scorecard["Judged@10"] {
			t.Errorf("trial %s: Judged@10 %v with the store's labels, %v without", tr.Name, tr.Scorecard["Judged@10"], lb0.Trials[i].Scorecard["Judged@10"])
		}
	}
	if lb3.Trials[0].Scorecard["Judged@10"] <= lb0.Trials[0].Scorecard["Judged@10"] && lb3.Trials[1].Scorecard["Judged@10"] <= lb0.Trials[1].Scorecard["Judged@10"] {
		t.Errorf("the store's labels judged nothing more in the top trials")
	}
}

// TestSweepJudgeLLM: --judge llm judges the leading trials' hits through
// the settings' LLM judge (a rule-answering server on 127.0.0.1) within
// the budget, its labels land in the judge commands' store (labels:
// labels.db), and the key is written nowhere.
func TestSweepJudgeLLM(t *testing.T) {
	e, srv := newJudgeEnv(t, "")
	exp := e.write("grid.json", judgeGrid)
	dir, stdout, stderr := e.newRun(t, "--experiments", exp, "--mode", "replay", "--split", "all",
		"--judge", "llm", "--judge-budget", "30", "--judge-leading", "2")
	r := readRescored(t, dir).Rescored
	if r == nil || !strings.HasPrefix(r.Judge, "llm:rule-1@") || len(r.Rounds) != 1 || r.Rounds[0].Asked != 30 || r.Rounds[0].Labels != 30 || r.Stopped != "budget" {
		t.Fatalf("rescored %+v\nstdout:\n%s\nstderr:\n%s", r, stdout, stderr)
	}
	if srv.Requests() == 0 {
		t.Errorf("the judge server was not called")
	}
	if n := e.labelCount(); n != 30 {
		t.Errorf("%d labels in the store, want 30", n)
	}
	filepath.Walk(e.dir, func(path string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			if data, _ := os.ReadFile(path); strings.Contains(string(data), judgeKey) {
				t.Errorf("%s holds the API key", path)
			}
		}
		return nil
	})
}
