package sweeptest_test

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/cmd/tune/internal/sweeptest"
	"github.com/fusiontune/fusiontune/runs"
)

// TestLeaderboardByCategory: a swept run's leaderboard by category (tune
// leaderboard --by category) pivots the recorded leaderboard, each
// category's primary score a column, equal to the category scorecards of
// leaderboard.json, in every format.
func TestLeaderboardByCategory(t *testing.T) {
	exp, err := filepath.Abs(filepath.Join("testdata", "significant.json"))
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	t.Chdir(t.TempDir())
	if err := os.WriteFile("tune.yaml", []byte("runs_dir: runs\neval:\n  concurrency: 4\nbackend:\n  engine:\n    dense:\n      model: hash-384\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run := sweeptest.Sweep(t, "tune.yaml", exp, sweeptest.Options{}).Run
	var out bytes.Buffer
	if err := runs.RenderView(&out, run, runs.View{By: "category"}, "csv"); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(strings.NewReader(out.String())).ReadAll()
	if err != nil || len(rows) < 3 {
		t.Fatalf("csv: %v\n%s", err, out.String())
	}
	var lb struct {
		Trials []struct {
			Name       string                        `json:"name"`
			Categories map[string]map[string]float64 `json:"categories"`
		} `json:"trials"`
	}
	data, _ := os.ReadFile(filepath.Join(run.Dir, "leaderboard.json"))
	if err := json.Unmarshal(data, &lb); err != nil {
		t.Fatal(err)
	}
	head := rows[0]
	if strings.Join(head[:4], ",") != "rank,trial,status,primary" || len(head) != 4+len(lb.Trials[0].Categories) {
		t.Fatalf("header %q", head)
	}
	for i, tr := range lb.Trials {
		row := rows[i+1]
		if row[1] != tr.Name {
			t.Fatalf("row %d is %q, want %q", i+1, row[1], tr.Name)
		}
		for j, cat := range head[4:] {
			got, err := strconv.ParseFloat(row[4+j], 64)
			if want := tr.Categories[cat]["primary"]; err != nil || got != want {
				t.Errorf("%s %s = %q, want %v", tr.Name, cat, row[4+j], want)
			}
		}
	}
	for _, f := range []string{"text", "md", "json"} {
		var b bytes.Buffer
		if err := runs.RenderView(&b, run, runs.View{By: "category"}, f); err != nil || !strings.Contains(b.String(), "paraphrase") {
			t.Errorf("format %s: %v\n%s", f, err, b.String())
		}
	}
}

// smallExperiment is four trials over two index groups (whole documents
// and 40-token chunks).
const smallExperiment = `{
  "baseline": {"params": {"fusion.method": "rrf", "fusion.k": 60, "chunk.size": 0}},
  "experiments": [
    {"name": "k=10", "params": {"fusion.k": 10}},
    {"name": "linear", "params": {"fusion.method": "linear", "fusion.normalization": "min_max"}},
    {"name": "bm25-only", "params": {"retrievers": ["bm25"]}}
  ],
  "grid": {"chunk.size": [40]}
}`

// TestLeaderboardPareto sweeps the demo with replay, where the trials
// send no query of their own: without finalists the run measures no
// latency and its Pareto view is runs.ErrNoLatency; with
// latency.finalists the best trials are measured live against the served
// engine, whose stage timings reach latency.json, and the Pareto view
// lists them with the front.
func TestLeaderboardPareto(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	t.Chdir(t.TempDir())
	const settings = "runs_dir: runs\neval:\n  concurrency: 4\n"
	for name, text := range map[string]string{"tune.yaml": settings, "small.json": smallExperiment,
		"finalists.yaml": settings + "latency:\n  finalists: 2\n  repeats: 2\n"} {
		if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	plain := sweeptest.Sweep(t, "tune.yaml", "small.json", sweeptest.Options{}).Run
	if _, err := os.Stat(filepath.Join(plain.Dir, "latency.json")); !os.IsNotExist(err) {
		t.Errorf("a replayed run without finalists wrote latency.json (%v)", err)
	}
	if err := runs.RenderView(&bytes.Buffer{}, plain, runs.View{Pareto: true}, "text"); !errors.Is(err, runs.ErrNoLatency) {
		t.Errorf("pareto without latency.json: err = %v, want runs.ErrNoLatency", err)
	}

	r := sweeptest.Sweep(t, "finalists.yaml", "small.json", sweeptest.Options{})
	if !strings.Contains(r.Log, "latency: finalist 2/2") {
		t.Errorf("no finalist measurement in the log:\n%s", r.Log)
	}
	var out bytes.Buffer
	if err := runs.RenderView(&out, r.Run, runs.View{Pareto: true}, "json"); err != nil {
		t.Fatal(err)
	}
	var v struct {
		Trials []struct {
			Name    string `json:"name"`
			Source  string `json:"source"`
			Repeats int    `json:"repeats"`
			Latency struct {
				Queries int                        `json:"queries"`
				QPS     float64                    `json:"qps"`
				Stages  map[string]json.RawMessage `json:"stages"`
			} `json:"latency"`
		} `json:"trials"`
		Front []struct {
			Name string `json:"name"`
		} `json:"front"`
	}
	if err := json.Unmarshal(out.Bytes(), &v); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	if len(v.Trials) != 2 || len(v.Front) == 0 {
		t.Fatalf("want the 2 finalists and a front:\n%s", out.String())
	}
	for _, tr := range v.Trials {
		if tr.Source != "repeat" || tr.Repeats != 2 || tr.Latency.Queries == 0 || tr.Latency.QPS <= 0 {
			t.Errorf("finalist %s: %+v", tr.Name, tr)
		}
		for _, stage := range []string{"lexical", "dense", "fusion"} {
			if _, ok := tr.Latency.Stages[stage]; !ok {
				t.Errorf("finalist %s: no %s stage timing from the served engine", tr.Name, stage)
			}
		}
	}
	var text bytes.Buffer
	if err := runs.RenderView(&text, r.Run, runs.View{Pareto: true}, "text"); err != nil || !strings.Contains(text.String(), "Pareto front (primary × p95, *): ") || !strings.Contains(text.String(), "median of 2") {
		t.Errorf("pareto text: %v\n%s", err, text.String())
	}
}
