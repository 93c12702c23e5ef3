package main_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// TestFaultServiceHelper is not a test: with FAULT_SERVICE=1 it is a small
// misbehaving search service, started by the real tune binary through
// backend.kind process as `TEST-BINARY -test.run=... -- CONFIG ADDR`. Its
// rendered config says how it misbehaves (fault: ok | never-ready | hang |
// http500 | malformed | die-once); die-once SIGKILLs itself at its 4th
// search unless $FAULT_MARK exists (which it creates first). While the file
// $FAULT_SLOW exists, it starts slowly (a minute before it listens).
func TestFaultServiceHelper(t *testing.T) {
	if os.Getenv("FAULT_SERVICE") != "1" {
		t.Skip("helper process only")
	}
	var args []string
	for i, a := range os.Args {
		if a == "--" {
			args = os.Args[i+1:]
		}
	}
	if len(args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: -- CONFIG ADDR")
		os.Exit(2)
	}
	data, err := os.ReadFile(args[0])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	fault := ""
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "fault: "); ok {
			fault = strings.Trim(v, `"' `)
		}
	}
	var searches atomic.Int64
	mux := http.NewServeMux()
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, r *http.Request) {
		if fault == "never-ready" {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	})
	mux.HandleFunc("/search", func(w http.ResponseWriter, r *http.Request) {
		n := searches.Add(1)
		switch fault {
		case "hang":
			<-r.Context().Done()
			return
		case "http500":
			w.WriteHeader(http.StatusInternalServerError)
			fmt.Fprintln(w, `{"error":"index corrupted"}`)
			return
		case "malformed":
			fmt.Fprint(w, `{"hits": [{"doc_id": "kb-0001", "score": `)
			return
		case "die-once":
			if _, err := os.Stat(os.Getenv("FAULT_MARK")); n == 4 && err != nil {
				os.WriteFile(os.Getenv("FAULT_MARK"), nil, 0o644)
				syscall.Kill(os.Getpid(), syscall.SIGKILL)
			}
		}
		json.NewEncoder(w).Encode(map[string]any{"hits": []map[string]any{{"doc_id": "kb-0028", "score": 2}, {"doc_id": "kb-0001", "score": 1}}})
	})
	if slow := os.Getenv("FAULT_SLOW"); slow != "" {
		if _, err := os.Stat(slow); err == nil {
			time.Sleep(time.Minute) // a slow start: not listening yet
		}
	}
	fmt.Fprintln(os.Stderr, "fault service", fault, "on", args[1], http.ListenAndServe(args[1], mux))
	os.Exit(1)
}

// TestFaultMatrixProcessKind runs the fault matrix through the real binary
// with backend.kind process: each misbehaving trial is recorded failed with
// its reason, every other trial succeeds, the sweep finishes (exit 3), and
// no service is left running.
func TestFaultMatrixProcessKind(t *testing.T) {
	e := newSweepEnv(t, "")
	addr := freeAddr(t)
	e.env = append(e.env, "FAULT_SERVICE=1", "FAULT_MARK="+filepath.Join(e.dir, "died"))
	e.write("svc.yaml.tmpl", "fault: {{ param \"custom.fault\" \"ok\" }}\nn: {{ param \"custom.n\" 0 }}\n")
	// Eight queries: a hanging service costs each one its timeout twice,
	// and the demo's 90 would spend 14 s on that alone.
	var golden strings.Builder
	golden.WriteString(`{"queries": [`)
	for i := range 8 {
		if i > 0 {
			golden.WriteString(",")
		}
		fmt.Fprintf(&golden, `{"id": "q%d", "query": "query %d", "category": "c", "expected_passages": [{"doc_id": "d%d", "relevance": 3}]}`, i, i, i)
	}
	golden.WriteString("]}")
	e.write("golden.json", golden.String())
	e.write("tune.yaml", faultServiceSettings(addr, "eval: {timeout: 300ms, retries: 1, concurrency: 4}\n", "", "2s"))
	exp := e.write("exp.json", `{"baseline": {"params": {"custom.fault": "ok"}}, "experiments": [
	  {"name": "never-ready", "params": {"custom.fault": "never-ready"}},
	  {"name": "hang", "params": {"custom.fault": "hang"}},
	  {"name": "http500", "params": {"custom.fault": "http500"}},
	  {"name": "malformed", "params": {"custom.fault": "malformed"}},
	  {"name": "killed-mid-batch", "params": {"custom.fault": "die-once"}},
	  {"name": "after", "params": {"custom.fault": "ok", "custom.n": 1}}]}`)
	stdout, stderr, code := e.run("--experiments", exp)
	if code != 3 {
		t.Fatalf("exit %d, want 3\n%s\n%s", code, stdout, stderr)
	}
	want := map[string]string{
		"never-ready":      "ready: service not ready after 2s",
		"hang":             "timed out after 300ms",
		"http500":          `status 500: {"error":"index corrupted"}`,
		"malformed":        "response is not JSON",
		"killed-mid-batch": "service exited: signal: killed",
	}
	recs := readTrials(t, trialFiles(e.runDirs()[0]))
	if len(recs) != 7 {
		t.Fatalf("%d trials recorded, want 7", len(recs))
	}
	for _, r := range recs {
		reason, bad := want[r.Name]
		switch {
		case bad && (r.Status != "failed" || !strings.Contains(r.Error, reason)):
			t.Errorf("%s: %s %q, want failed with %q", r.Name, r.Status, r.Error, reason)
		case !bad && r.Status != "ok":
			t.Errorf("%s: %s %q", r.Name, r.Status, r.Error)
		}
	}
	if !strings.Contains(stderr, "5 of 7 trials failed") {
		t.Errorf("stderr:\n%s", stderr)
	}
	// Match this test's own services (their argv holds its address), not
	// those of another test binary running beside it.
	if left := processesWith(addr); len(left) > 0 {
		t.Errorf("services left running: %v", left)
	}
}

// faultServiceSettings is the tune.yaml of a process-kind backend running
// TestFaultServiceHelper on addr from svc.yaml.tmpl: top adds top-level
// settings, backend adds backend keys (each line indented two spaces),
// start is backend.start_timeout.
func faultServiceSettings(addr, top, backend, start string) string {
	return fmt.Sprintf(`runs_dir: runs
dataset: {path: golden.json}
%sbackend:
  kind: process
%s  command: [%q, "-test.run=^TestFaultServiceHelper$", "--", "{config}", %q]
  template: svc.yaml.tmpl
  health_url: http://%s/healthz
  start_timeout: %s
  stop_timeout: 2s
  search:
    url: http://%s/search
    body: '{"query": {{ .query }}, "k": {{ .k }}}'
    hits: hits
    id: doc_id
    score: score
`, top, backend, os.Args[0], addr, addr, start, addr)
}

// TestPreflightSampleSearch: a response mapping that does not fit the
// service (search.hits names a path its answers lack) is found by the
// pre-flight's one sample search, before any trial: exit 2 naming the path
// and the setting, no run directory, instead of every query of every trial
// failing.
func TestPreflightSampleSearch(t *testing.T) {
	e := newSweepEnv(t, "")
	addr := freeAddr(t)
	e.env = append(e.env, "FAULT_SERVICE=1")
	e.write("svc.yaml.tmpl", "fault: {{ param \"custom.fault\" \"ok\" }}\n")
	e.write("golden.json", `{"queries": [{"id": "q1", "query": "boiler pressure", "category": "c", "expected_passages": [{"doc_id": "kb-0028", "relevance": 3}]}]}`)
	e.write("tune.yaml", strings.Replace(faultServiceSettings(addr, "", "", "5s"), "hits: hits", "hits: results", 1))
	exp := e.write("exp.json", `{"baseline": {"params": {"custom.fault": "ok"}}, "experiments": [{"name": "other", "params": {"custom.fault": "ok", "custom.n": 1}}]}`)
	start := time.Now()
	stdout, stderr, code := e.run("--experiments", exp)
	if code != 2 {
		t.Fatalf("exit %d, want 2\n%s\n%s", code, stdout, stderr)
	}
	want := `tune: pre-flight: the search settings do not fit the service: a sample search on the baseline config (trial "baseline", query "boiler pressure") failed: search: response has nothing at path "results" (search.hits)`
	if !strings.Contains(stderr, want) {
		t.Errorf("stderr lacks %q:\n%s", want, stderr)
	}
	if strings.Contains(stderr, "trial 1/") {
		t.Errorf("a trial ran:\n%s", stderr)
	}
	if dirs := e.runDirs(); len(dirs) != 0 {
		t.Errorf("run directories left: %v", dirs)
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("took %v", d)
	}
	if left := processesWith(addr); len(left) > 0 {
		t.Errorf("services left running: %v", left)
	}
}
