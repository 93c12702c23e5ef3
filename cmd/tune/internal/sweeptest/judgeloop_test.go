package sweeptest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/tuner/judging"

	"github.com/fusiontune/fusiontune/tuner/dataset"

	"github.com/fusiontune/fusiontune/tuner/replay"

	"github.com/fusiontune/fusiontune/cmd/tune/internal/settings"
	"github.com/fusiontune/fusiontune/cmd/tune/internal/sweeptest"
	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner/judging/judge/llm/llmtest"
	"github.com/fusiontune/fusiontune/tuner/judging/labels"
)

// judgeGrid is a small replayed RRF grid on the demo.
const judgeGrid = `{
  "baseline": {"params": {"fusion.method": "rrf", "fusion.k": 60}},
  "grid": {"fusion.k": [1, 60], "fusion.weights.bm25": [0.2, 0.8]}
}`

// judgeSweep is a replayed sweep of judgeGrid over the whole demo under
// tune.yaml, judged as j asks (none: the zero SweepJudge).
func judgeSweep(t *testing.T, j settings.SweepJudge) *sweeptest.Result {
	t.Helper()
	return sweeptest.Sweep(t, "tune.yaml", "grid.json", sweeptest.Options{Mode: "replay", Judge: j})
}

// poolOf pools a recorded run through the library (what tune judge pool
// prints).
func poolOf(t *testing.T, run *runs.Run) []string {
	t.Helper()
	run.Derive = replay.NewDeriver()
	p, err := judging.PoolRun(run, judging.PoolOptions{Trials: "all"})
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

func readRescored(t *testing.T, run *runs.Run) rescoredLB {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(run.Dir, "leaderboard.json"))
	if err != nil {
		t.Fatal(err)
	}
	var lb rescoredLB
	if err := json.Unmarshal(data, &lb); err != nil {
		t.Fatal(err)
	}
	return lb
}

// writeFiles writes each file of files (name: text) into the working
// directory.
func writeFiles(t *testing.T, files map[string]string) {
	t.Helper()
	for name, text := range files {
		if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestSweepJudgeFileAndLabels: a demo sweep pools its unjudged hits; half
// of them go into a qrels file; a sweep judged by the file judge on that
// file judges the leading trials' hits within the budget, stores the
// labels in dataset.labels and records rounds, labels and the orders
// before and after in leaderboard.json; a third sweep merges the stored
// labels into its judgments (provenance in the snapshot) and so sees more
// of its top 10 judged.
func TestSweepJudgeFileAndLabels(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	t.Chdir(t.TempDir())
	writeFiles(t, map[string]string{"tune.yaml": "runs_dir: runs\neval:\n  concurrency: 4\ndataset:\n  split: all\n  labels: labels.db\n", "grid.json": judgeGrid})
	first := judgeSweep(t, settings.SweepJudge{}).Run
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
	writeFiles(t, map[string]string{"hidden.qrels": qrels.String()})

	const budget = 40
	second := judgeSweep(t, settings.SweepJudge{Spec: "file:hidden.qrels", Budget: budget, Target: 1, Leading: judging.DefaultJudgeLeading})
	var stdout bytes.Buffer
	if err := second.Leaderboard.Render(&stdout, "text"); err != nil {
		t.Fatal(err)
	}
	r := readRescored(t, second.Run).Rescored
	if r == nil {
		t.Fatalf("no rescored section\nleaderboard:\n%s\nlog:\n%s", stdout.String(), second.Log)
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
	if !strings.Contains(stdout.String(), "rescored by judge file:hidden.qrels") || !strings.Contains(second.Log, "judge file:hidden.qrels: round 1:") {
		t.Errorf("no rescored line in the leaderboard or round line in the log:\n%s\n%s", stdout.String(), second.Log)
	}
	st, err := labels.Open(context.Background(), "labels.db")
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

	third := judgeSweep(t, settings.SweepJudge{})
	if !strings.Contains(third.Log, fmt.Sprintf("%d file, 0 implicit", got)) {
		t.Errorf("no provenance line in the log:\n%s", third.Log)
	}
	var info struct {
		ID     string             `json:"dataset_id"`
		Labels dataset.LabelsInfo `json:"labels"`
	}
	data, err := os.ReadFile(filepath.Join(third.Run.Dir, "golden.json.sha256.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &info); err != nil {
		t.Fatal(err)
	}
	if info.ID != "demo" || info.Labels.Provenance.File != got || info.Labels.Provenance.Gold == 0 || info.Labels.URL != "labels.db" {
		t.Errorf("snapshot: %+v", info)
	}
	lb3 := readRescored(t, third.Run)
	for i, tr := range lb3.Trials {
		if tr.Status == "ok" && tr.Scorecard["Judged@10"] < lb0.Trials[i].Scorecard["Judged@10"] {
			t.Errorf("trial %s: Judged@10 %v with the store's labels, %v without", tr.Name, tr.Scorecard["Judged@10"], lb0.Trials[i].Scorecard["Judged@10"])
		}
	}
	if lb3.Trials[0].Scorecard["Judged@10"] <= lb0.Trials[0].Scorecard["Judged@10"] && lb3.Trials[1].Scorecard["Judged@10"] <= lb0.Trials[1].Scorecard["Judged@10"] {
		t.Errorf("the store's labels judged nothing more in the top trials")
	}
}

// judgeKey is the LLM judge's API key, which must be written nowhere.
const judgeKey = "sk-judge-test-0123456789"

// TestSweepJudgeLLM: a sweep judged by the llm judge judges the leading
// trials' hits through the settings' LLM judge (a rule-answering server
// on 127.0.0.1) within the budget, its labels land in the judge
// commands' store (labels: labels.db), and the key is written nowhere.
func TestSweepJudgeLLM(t *testing.T) {
	srv := llmtest.Start(t)
	srv.Key = judgeKey
	t.Setenv("FT_TEST_JUDGE_KEY", judgeKey)
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	dir := t.TempDir()
	t.Chdir(dir)
	writeFiles(t, map[string]string{"grid.json": judgeGrid, "tune.yaml": fmt.Sprintf("runs_dir: runs\nlabels: labels.db\ndataset:\n  split: all\njudge:\n  url: %s\n  model: rule-1\n  api_key_env: FT_TEST_JUDGE_KEY\n  retries: 1\n  timeout: 5s\n", srv.URL)})
	res := judgeSweep(t, settings.SweepJudge{Spec: "llm", Budget: 30, Target: judging.DefaultJudgeTarget, Leading: 2})
	r := readRescored(t, res.Run).Rescored
	if r == nil || !strings.HasPrefix(r.Judge, "llm:rule-1@") || len(r.Rounds) != 1 || r.Rounds[0].Asked != 30 || r.Rounds[0].Labels != 30 || r.Stopped != "budget" {
		t.Fatalf("rescored %+v\nlog:\n%s", r, res.Log)
	}
	if srv.Requests() == 0 {
		t.Errorf("the judge server was not called")
	}
	st, err := labels.Open(context.Background(), "labels.db")
	if err != nil {
		t.Fatal(err)
	}
	all, err := st.Select(context.Background(), "demo", true, "")
	st.Close()
	if err != nil || len(all) != 30 {
		t.Errorf("%d labels in the store (%v), want 30", len(all), err)
	}
	filepath.Walk(dir, func(path string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			if data, _ := os.ReadFile(path); strings.Contains(string(data), judgeKey) {
				t.Errorf("%s holds the API key", path)
			}
		}
		return nil
	})
}
