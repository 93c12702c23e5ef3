package main_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLeaderboardPareto sweeps the demo with replay, where the trials
// send no query of their own: without finalists the run measures no
// latency and --pareto says so (exit 2); with latency.finalists the best
// trials are measured live against tune serve, whose stage timings reach
// latency.json, and --pareto lists them with the front.
func TestLeaderboardPareto(t *testing.T) {
	e := newSweepEnv(t, sweepSettings)
	exp := e.write("small.json", smallExperiment)
	plain, _, _ := e.newRun(t, "--experiments", exp)
	if _, err := os.Stat(filepath.Join(plain, "latency.json")); !os.IsNotExist(err) {
		t.Errorf("a replayed run without finalists wrote latency.json (%v)", err)
	}
	_, stderr, code := e.run("leaderboard", filepath.Base(plain), "--pareto")
	if code != 2 || !strings.Contains(stderr, "measured no latency") {
		t.Errorf("--pareto without latency.json: exit %d\n%s", code, stderr)
	}

	e.write("tune.yaml", sweepSettings+"latency:\n  finalists: 2\n  repeats: 2\n")
	run, _, stderr := e.newRun(t, "--experiments", exp)
	if !strings.Contains(stderr, "latency: finalist 2/2") {
		t.Errorf("no finalist measurement on stderr:\n%s", stderr)
	}
	stdout, stderr, code := e.run("leaderboard", filepath.Base(run), "--pareto", "--format", "json")
	if code != 0 {
		t.Fatalf("--pareto: exit %d\n%s", code, stderr)
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
	if err := json.Unmarshal([]byte(stdout), &v); err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	if len(v.Trials) != 2 || len(v.Front) == 0 {
		t.Fatalf("want the 2 finalists and a front:\n%s", stdout)
	}
	for _, tr := range v.Trials {
		if tr.Source != "repeat" || tr.Repeats != 2 || tr.Latency.Queries == 0 || tr.Latency.QPS <= 0 {
			t.Errorf("finalist %s: %+v", tr.Name, tr)
		}
		for _, stage := range []string{"lexical", "dense", "fusion"} {
			if _, ok := tr.Latency.Stages[stage]; !ok {
				t.Errorf("finalist %s: no %s stage timing from tune serve", tr.Name, stage)
			}
		}
	}
	text, _, code := e.run("leaderboard", filepath.Base(run), "--pareto")
	if code != 0 || !strings.Contains(text, "Pareto front (primary × p95, *): ") || !strings.Contains(text, "median of 2") {
		t.Errorf("--pareto text: exit %d\n%s", code, text)
	}
}
