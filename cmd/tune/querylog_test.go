package main_test

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/internal/querylog"
)

// TestServeQueryLogSurvivesTuning: `tune serve` on a production config
// with a log block logs a user's search and click (a real process over
// loopback HTTP); a sweep and a promotion over that same config then leave
// the log untouched (the tuner's trials and smoke checks run with
// --no-query-log) and keep the log block in the promoted config.
func TestServeQueryLogSurvivesTuning(t *testing.T) {
	demo, err := os.ReadFile("../../experiments/demo/corpus.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	e := newSweepEnv(t, sweepSettings+"backend:\n  config: deploy/engine.yaml\n")
	if err := os.MkdirAll(filepath.Join(e.dir, "deploy"), 0o755); err != nil {
		t.Fatal(err)
	}
	e.write("corpus.jsonl", string(demo))
	prod := e.write("deploy/engine.yaml", "corpus: {path: ../corpus.jsonl}\ndense: {model: hash-64}\nfusion: {method: rrf, k: 60}\nlog: {path: ../logs/queries.jsonl}\n")
	if err := os.MkdirAll(filepath.Join(e.dir, "logs"), 0o755); err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(e.dir, "logs", "queries.jsonl")

	addr, stop := startServe(t, prod, t.TempDir())
	resp, err := http.Post("http://"+addr+"/search", "application/json", strings.NewReader(`{"query": "reset my password", "k": 5}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	id := resp.Header.Get("X-Request-Id")
	if resp.StatusCode != 200 || id == "" {
		t.Fatalf("search: %d, request id %q", resp.StatusCode, id)
	}
	resp, err = http.Post("http://"+addr+"/feedback", "application/json", strings.NewReader(`{"request_id": "`+id+`", "action": "research"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 204 {
		t.Fatalf("feedback: %d", resp.StatusCode)
	}
	stop()
	before, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	log, err := querylog.Read([]string{logPath}, querylog.ReadOptions{})
	if err != nil || len(log.Searches) != 1 || len(log.Feedback) != 1 || log.Searches[0].Query != "reset my password" {
		t.Fatalf("log after serving: %v %+v", err, log)
	}

	exp := e.write("exp.json", `{"baseline": {"params": {"fusion.k": 60}}, "experiments": [{"name": "k=20", "params": {"fusion.k": 20}}]}`)
	if stdout, stderr, code := e.run("--experiments", exp, "--apply-best", "--force"); code != 0 {
		t.Fatalf("sweep: exit %d\n%s\n%s", code, stdout, stderr)
	}
	after, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	if string(after) != string(before) {
		t.Errorf("the sweep wrote to the production query log:\n%s", after[len(before):])
	}
	promoted, err := os.ReadFile(prod)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(promoted), "log:") || !strings.Contains(string(promoted), "queries.jsonl") {
		t.Errorf("the promoted config lost its log block:\n%s", promoted)
	}
}
