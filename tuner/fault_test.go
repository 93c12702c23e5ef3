package tuner_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/fusiontune/fusiontune/tuner/pass"

	"github.com/fusiontune/fusiontune/tuner/scoring"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/backend/client"
	"github.com/fusiontune/fusiontune/backend/process"
	"github.com/fusiontune/fusiontune/backend/render"
	"github.com/fusiontune/fusiontune/experiments"
	"github.com/fusiontune/fusiontune/metrics"
	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner"
	"gopkg.in/yaml.v3"
)

// The fault matrix, part two: a small misbehaving search service, run as a
// real child process (this test binary re-executed) by the process backend
// and spoken to over HTTP on 127.0.0.1. Its config file says how it
// misbehaves:
//
//	custom: {fault: ok | never-ready | hang | http500 | malformed | die-once | die-always}
//
// die-once SIGKILLs itself at its 4th search unless FAULT_MARK exists
// (which it creates first); die-always at every 4th search.

// TestFaultServerProcess is not a test: it is the misbehaving service when
// FAULT_CONFIG is set.
func TestFaultServerProcess(t *testing.T) {
	cfgPath := os.Getenv("FAULT_CONFIG")
	if cfgPath == "" {
		t.Skip("helper process only")
	}
	os.Exit(faultServer(cfgPath, os.Getenv("FAULT_READY"), os.Getenv("FAULT_MARK")))
}

func faultServer(cfgPath, readyPath, mark string) int {
	data, err := os.ReadFile(cfgPath)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	var cfg struct {
		Custom struct {
			Fault string `yaml:"fault"`
		} `yaml:"custom"`
	}
	if err := yaml.Unmarshal(data, &cfg); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	fault := cfg.Custom.Fault
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	var searches atomic.Int64
	mux := http.NewServeMux()
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, r *http.Request) {
		if fault == "never-ready" {
			w.WriteHeader(http.StatusServiceUnavailable)
			fmt.Fprintln(w, `{"status":"indexing"}`)
			return
		}
		fmt.Fprintln(w, `{"status":"ready"}`)
	})
	mux.HandleFunc("/search", func(w http.ResponseWriter, r *http.Request) {
		var req backend.SearchRequest
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
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
			fmt.Fprint(w, `{"hits": [{"doc_id": "d1", "score": `)
			return
		case "fail-q2-q5":
			if req.Query == "q2" || req.Query == "q5" {
				w.WriteHeader(http.StatusInternalServerError)
				fmt.Fprintln(w, `{"error":"shard unavailable"}`)
				return
			}
		case "die-once", "die-always":
			if n == 4 {
				if _, err := os.Stat(mark); fault == "die-always" || err != nil {
					os.WriteFile(mark, nil, 0o644)
					syscall.Kill(os.Getpid(), syscall.SIGKILL)
				}
			}
		}
		// The query text names its relevant document: "q3" finds d3 first.
		id := "d" + strings.TrimPrefix(req.Query, "q")
		json.NewEncoder(w).Encode(backend.SearchResponse{Hits: []backend.Hit{{DocID: id, Score: 2}, {DocID: "other", Score: 1}}})
	})
	if readyPath != "" {
		os.WriteFile(readyPath, []byte(ln.Addr().String()+"\n"), 0o644)
	}
	return func() int { http.Serve(ln, mux); return 1 }()
}

type faultRig struct {
	dir string
	b   *process.Backend
	run *runs.Run
}

func newFaultRig(t *testing.T) *faultRig {
	t.Helper()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "service.yaml")
	ready := filepath.Join(dir, "ready")
	b, err := process.New(process.Options{
		Command:      []string{os.Args[0], "-test.run=^TestFaultServerProcess$"},
		Env:          []string{"FAULT_CONFIG=" + cfg, "FAULT_READY=" + ready, "FAULT_MARK=" + filepath.Join(dir, "died")},
		ConfigPath:   cfg,
		ReadyFile:    ready,
		Render:       render.YAMLOverlay(map[string]any{}, "ignored."),
		Dial:         func(addr string) (backend.Searcher, error) { return client.New("http://" + addr) },
		StartTimeout: 2 * time.Second,
		StopTimeout:  2 * time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	store, err := runs.Open(filepath.Join(dir, "runs"))
	if err != nil {
		t.Fatal(err)
	}
	run, err := store.Create(runs.Manifest{Tool: "test"}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	return &faultRig{dir: dir, b: b, run: run}
}

func (r *faultRig) sweep(t *testing.T, budget int, trials ...experiments.TrialSpec) (*tuner.Result, error) {
	t.Helper()
	return r.sweepStopping(t, budget, 0, trials...)
}

// sweepStopping is sweep with a limit of consecutive same-error failures.
func (r *faultRig) sweepStopping(t *testing.T, budget, consecutive int, trials ...experiments.TrialSpec) (*tuner.Result, error) {
	t.Helper()
	return r.sweepWith(t, budget, consecutive, "", trials...)
}

// sweepWith is sweep with a limit of consecutive same-error failures and
// an eval.on_query_error policy.
func (r *faultRig) sweepWith(t *testing.T, budget, consecutive int, onQueryError string, trials ...experiments.TrialSpec) (*tuner.Result, error) {
	t.Helper()
	var queries []scoring.Query
	for i := 1; i <= 8; i++ {
		queries = append(queries, scoring.Query{ID: fmt.Sprintf("q%d", i), Text: fmt.Sprintf("q%d", i),
			Judgments: map[string]int{fmt.Sprintf("d%d", i): 3}})
	}
	sc, err := scoring.NewScorer("NDCG@10", nil, metrics.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	return tuner.Sweep(context.Background(), tuner.Options{
		Trials: trials, Queries: queries, Backend: r.b, Scorer: sc, Run: r.run,
		Eval:          pass.EvalOptions{Concurrency: 2, Timeout: 300 * time.Millisecond, Retries: 1, Backoff: 10 * time.Millisecond, OnQueryError: onQueryError},
		FailureBudget: budget, MaxConsecutiveFailures: consecutive,
	})
}

func trial(name, fault string, extra ...any) experiments.TrialSpec {
	p := experiments.Params{"custom.fault": fault}
	for i := 0; i+1 < len(extra); i += 2 {
		p[extra[i].(string)] = extra[i+1]
	}
	return experiments.TrialSpec{Name: name, Params: p, Baseline: name == "baseline"}
}

// TestFaultMatrix runs one sweep through every misbehaviour: each failed
// trial is recorded with its reason, every other trial succeeds (the sweep
// goes on, restarting the service), and the records on disk match.
func TestFaultMatrix(t *testing.T) {
	r := newFaultRig(t)
	res, err := r.sweep(t, 0,
		trial("baseline", "ok"),
		trial("never-ready", "never-ready"),
		trial("after-never-ready", "ok", "custom.n", 1),
		trial("hang", "hang"),
		trial("after-hang", "ok", "custom.n", 2),
		trial("http500", "http500"),
		trial("malformed", "malformed"),
		trial("killed-mid-batch", "die-once"),
		// Same rendered config as killed-mid-batch (ignored.* is not
		// rendered): the dead service must still be restarted.
		trial("same-config-after-kill", "die-once", "ignored.x", 1),
		trial("last", "ok", "custom.n", 3),
	)
	if err != nil {
		t.Fatalf("sweep stopped: %v", err)
	}
	want := map[string]string{
		"never-ready":      "ready: service not ready after 2s",
		"hang":             "timed out after 300ms",
		"http500":          "500 Internal Server Error: index corrupted",
		"malformed":        "decode response",
		"killed-mid-batch": "service exited: signal: killed",
	}
	recorded, err := r.run.Trials()
	if err != nil {
		t.Fatal(err)
	}
	if len(recorded) != 10 || len(res.Trials) != 10 {
		t.Fatalf("%d trials recorded, %d returned; want 10", len(recorded), len(res.Trials))
	}
	for _, rec := range recorded {
		reason, bad := want[rec.Name]
		switch {
		case bad && rec.Status != runs.StatusFailed:
			t.Errorf("%s: status %s, want failed", rec.Name, rec.Status)
		case bad && !strings.Contains(rec.Error, reason):
			t.Errorf("%s: error %q lacks %q", rec.Name, rec.Error, reason)
		case !bad && rec.Status != runs.StatusOK:
			t.Errorf("%s: %s %s", rec.Name, rec.Status, rec.Error)
		case !bad && rec.Primary != 1:
			t.Errorf("%s: primary %v, want 1", rec.Name, rec.Primary)
		}
		if rec.Name == "killed-mid-batch" && rec.Failed == 0 {
			t.Errorf("killed-mid-batch: no failed query counted")
		}
	}
	for _, name := range []string{"hang", "killed-mid-batch"} {
		for _, rec := range recorded {
			if rec.Name != name {
				continue
			}
			qs, err := r.run.QueryResults(rec.Index)
			if err != nil {
				t.Fatal(err)
			}
			failed := 0
			for _, q := range qs {
				if q.Error != "" {
					failed++
				}
			}
			if failed != rec.Failed || failed == 0 {
				t.Errorf("%s: %d failed queries on disk, record says %d", name, failed, rec.Failed)
			}
		}
	}
}

// TestFaultBudget stops the sweep at the budget's last failure, after
// recording it; trials after it are not run.
func TestFaultBudget(t *testing.T) {
	r := newFaultRig(t)
	_, err := r.sweep(t, 2,
		trial("baseline", "ok"),
		trial("500-a", "http500"),
		trial("ok-1", "ok", "custom.n", 1),
		trial("500-b", "http500", "custom.n", 2),
		trial("never-run", "ok", "custom.n", 3),
	)
	if !errors.Is(err, tuner.ErrFailureBudget) {
		t.Fatalf("err = %v, want ErrFailureBudget", err)
	}
	recorded, _ := r.run.Trials()
	var names []string
	for _, rec := range recorded {
		names = append(names, rec.Name+":"+string(rec.Status))
	}
	if got := strings.Join(names, " "); got != "baseline:ok 500-a:failed ok-1:ok 500-b:failed" {
		t.Errorf("recorded %s", got)
	}
}

// TestFaultConsecutiveSameError stops the sweep at the third trial in a row
// failing with the same error (the trials' names and numbers differ), after
// recording it; trials after it are not run. Failures of different kinds in
// a row, or the same failure interrupted by a success, go on.
func TestFaultConsecutiveSameError(t *testing.T) {
	for _, tc := range []struct {
		name   string
		trials []experiments.TrialSpec
		want   string // recorded trials, in order
		stops  bool
	}{
		{"same error three times", []experiments.TrialSpec{
			trial("baseline", "ok"),
			trial("500-a", "http500", "custom.n", 1),
			trial("500-b", "http500", "custom.n", 2),
			trial("500-c", "http500", "custom.n", 3),
			trial("never-run", "ok", "custom.n", 4),
		}, "baseline:ok 500-a:failed 500-b:failed 500-c:failed", true},
		{"different errors in a row", []experiments.TrialSpec{
			trial("baseline", "ok"),
			trial("500-a", "http500", "custom.n", 1),
			trial("malformed", "malformed"),
			trial("500-b", "http500", "custom.n", 2),
			trial("last", "ok", "custom.n", 3),
		}, "baseline:ok 500-a:failed malformed:failed 500-b:failed last:ok", false},
		{"a success between", []experiments.TrialSpec{
			trial("baseline", "ok"),
			trial("500-a", "http500", "custom.n", 1),
			trial("500-b", "http500", "custom.n", 2),
			trial("ok-1", "ok", "custom.n", 3),
			trial("500-c", "http500", "custom.n", 4),
			trial("last", "ok", "custom.n", 5),
		}, "baseline:ok 500-a:failed 500-b:failed ok-1:ok 500-c:failed last:ok", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newFaultRig(t)
			_, err := r.sweepStopping(t, 0, 3, tc.trials...)
			switch {
			case tc.stops && !errors.Is(err, tuner.ErrStoppedEarly):
				t.Fatalf("err = %v, want ErrStoppedEarly", err)
			case tc.stops && !strings.Contains(err.Error(), "3 consecutive trials failed with the same error (500-a, 500-b, 500-c; 1 trials not run)"):
				t.Errorf("err = %v", err)
			case !tc.stops && err != nil:
				t.Fatalf("sweep stopped: %v", err)
			}
			recorded, _ := r.run.Trials()
			var names []string
			for _, rec := range recorded {
				names = append(names, rec.Name+":"+string(rec.Status))
			}
			if got := strings.Join(names, " "); got != tc.want {
				t.Errorf("recorded %s\nwant     %s", got, tc.want)
			}
		})
	}
}

// TestFaultOnQueryError: two of eight queries fail after their retries.
// eval.on_query_error fail fails the trial; zero scores them 0 (in the
// mean: 6/8) and skip leaves them out (the mean of the other six); both
// keep the trial ok and record the count, the policy and each query's fate.
// A trial whose every query failed fails under every policy.
func TestFaultOnQueryError(t *testing.T) {
	for _, tc := range []struct {
		policy  string
		status  string
		primary float64
		queries int
	}{
		{"fail", runs.StatusFailed, 0.75, 8},
		{"zero", runs.StatusOK, 0.75, 8},
		{"skip", runs.StatusOK, 1, 6},
	} {
		t.Run(tc.policy, func(t *testing.T) {
			r := newFaultRig(t)
			if _, err := r.sweepWith(t, 0, 0, tc.policy, trial("baseline", "ok"), trial("some", "fail-q2-q5"), trial("all", "http500")); err != nil {
				t.Fatal(err)
			}
			recorded, _ := r.run.Trials()
			for _, rec := range recorded {
				switch rec.Name {
				case "all":
					if rec.Status != runs.StatusFailed || !strings.Contains(rec.Error, "8 of 8 queries failed") {
						t.Errorf("all: %s %q, want failed", rec.Status, rec.Error)
					}
				case "some":
					wantPolicy := tc.policy
					if tc.policy == "fail" {
						wantPolicy = ""
					}
					if rec.Status != tc.status || rec.Failed != 2 || rec.OnQueryError != wantPolicy || rec.Queries != tc.queries {
						t.Errorf("some: status %s, %d failed, on_query_error %q, %d queries; want %s, 2, %q, %d",
							rec.Status, rec.Failed, rec.OnQueryError, rec.Queries, tc.status, wantPolicy, tc.queries)
					}
					if tc.status == runs.StatusOK && rec.Primary != tc.primary {
						t.Errorf("some: primary %v, want %v", rec.Primary, tc.primary)
					}
					qs, err := r.run.QueryResults(rec.Index)
					if err != nil {
						t.Fatal(err)
					}
					for _, q := range qs {
						failed := q.QueryID == "q2" || q.QueryID == "q5"
						if failed != (q.Error != "") || (failed && q.OnError != wantPolicy) {
							t.Errorf("some: query %s: error %q on_error %q", q.QueryID, q.Error, q.OnError)
						}
					}
				}
			}
		})
	}
}
