package main_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/runs"
)

// sweepEnv is a scratch working directory with its own caches, so tests
// neither read nor write the user's.
type sweepEnv struct {
	t   *testing.T
	dir string
	env []string
}

func newSweepEnv(t *testing.T, settings string) *sweepEnv {
	t.Helper()
	dir := t.TempDir()
	if settings != "" {
		if err := os.WriteFile(filepath.Join(dir, "tune.yaml"), []byte(settings), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return &sweepEnv{t: t, dir: dir, env: append(os.Environ(), "XDG_CACHE_HOME="+filepath.Join(dir, "cache"))}
}

func (e *sweepEnv) write(name, content string) string {
	e.t.Helper()
	p := filepath.Join(e.dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		e.t.Fatal(err)
	}
	return p
}

func (e *sweepEnv) command(args ...string) (*exec.Cmd, *bytes.Buffer, *bytes.Buffer) {
	cmd := exec.Command(tuneBinary(e.t), args...)
	cmd.Dir = e.dir
	cmd.Env = e.env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	return cmd, &stdout, &stderr
}

func (e *sweepEnv) run(args ...string) (string, string, int) {
	e.t.Helper()
	cmd, stdout, stderr := e.command(args...)
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		e.t.Fatal(err)
	}
	return stdout.String(), stderr.String(), code
}

// runDirs lists the run directories under runs/.
// newRun runs tune with args, which must succeed, and returns the run
// directory it made (found by listing: runs started within one second do
// not sort by name), its stdout and stderr.
func (e *sweepEnv) newRun(t *testing.T, args ...string) (string, string, string) {
	t.Helper()
	before := map[string]bool{}
	for _, d := range e.runDirs() {
		before[d] = true
	}
	stdout, stderr, code := e.run(args...)
	if code != 0 {
		t.Fatalf("%v: exit %d\n%s\n%s", args, code, stdout, stderr)
	}
	for _, d := range e.runDirs() {
		if !before[d] {
			return d, stdout, stderr
		}
	}
	t.Fatalf("%v: no new run directory", args)
	return "", "", ""
}

// runDirs lists the recorded runs oldest first, in the store's order:
// runs started within one second sort by their manifests' start times,
// not by their ids' random part.
func (e *sweepEnv) runDirs() []string {
	st := &runs.Store{Dir: filepath.Join(e.dir, "runs")}
	rs, err := st.List()
	if err != nil {
		return nil
	}
	dirs := make([]string, len(rs))
	for i, r := range rs {
		dirs[i] = r.Dir
	}
	return dirs
}

const smallExperiment = `{
  "baseline": {"params": {"fusion.method": "rrf", "fusion.k": 60, "chunk.size": 0}},
  "experiments": [
    {"name": "k=10", "params": {"fusion.k": 10}},
    {"name": "linear", "params": {"fusion.method": "linear", "fusion.normalization": "min_max"}},
    {"name": "bm25-only", "params": {"retrievers": ["bm25"]}}
  ],
  "grid": {"chunk.size": [40]}
}`

const sweepSettings = "runs_dir: runs\neval:\n  concurrency: 4\n"

func TestSweepEndToEnd(t *testing.T) {
	e := newSweepEnv(t, sweepSettings)
	exp := e.write("small.json", smallExperiment)
	stdout, stderr, code := e.run("--experiments", exp)
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	for _, want := range []string{"baseline", "k=10", "linear", "bm25-only", "chunk.size=40", "primary"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("leaderboard lacks %q:\n%s", want, stdout)
		}
	}
	if !strings.Contains(stderr, "backend restarts") {
		t.Errorf("no restart count on stderr:\n%s", stderr)
	}
	dirs := e.runDirs()
	if len(dirs) != 1 {
		t.Fatalf("run directories: %v", dirs)
	}
	run := dirs[0]
	for _, f := range []string{"manifest.json", "settings.json", "experiments.json", "golden.json", "leaderboard.json",
		"leaderboard.md", "leaderboard.csv", "trials/000.json", "trials/000.queries.jsonl", "trials/004.json", "backend/engine.yaml"} {
		if _, err := os.Stat(filepath.Join(run, f)); err != nil {
			t.Errorf("run lacks %s: %v", f, err)
		}
	}
	var lb struct {
		Trials []struct {
			Name    string  `json:"name"`
			Status  string  `json:"status"`
			Primary float64 `json:"primary"`
		} `json:"trials"`
	}
	data, _ := os.ReadFile(filepath.Join(run, "leaderboard.json"))
	if err := json.Unmarshal(data, &lb); err != nil {
		t.Fatal(err)
	}
	if len(lb.Trials) != 5 {
		t.Fatalf("%d trials in leaderboard.json", len(lb.Trials))
	}
	for i, tr := range lb.Trials {
		if tr.Status != "ok" || tr.Primary <= 0 {
			t.Errorf("trial %s: status %s primary %v", tr.Name, tr.Status, tr.Primary)
		}
		if i > 0 && tr.Primary > lb.Trials[i-1].Primary {
			t.Errorf("leaderboard not ordered at %s", tr.Name)
		}
	}
	// Per-query records carry the label sequence, request id and latency.
	q, _ := os.ReadFile(filepath.Join(run, "trials/000.queries.jsonl"))
	first := strings.SplitN(string(q), "\n", 2)[0]
	for _, want := range []string{`"labels":"1:L`, `"request_id":"`, `"latency_ms":`} {
		if !strings.Contains(first, want) {
			t.Errorf("query record lacks %s: %s", want, first)
		}
	}

	// The same sweep again gives byte-identical leaderboard JSON.
	if _, stderr, code := e.run("--experiments", exp); code != 0 {
		t.Fatalf("second sweep: exit %d\n%s", code, stderr)
	}
	dirs = e.runDirs()
	if len(dirs) != 2 {
		t.Fatalf("run directories after the second sweep: %v", dirs)
	}
	a, _ := os.ReadFile(filepath.Join(dirs[0], "leaderboard.json"))
	b, _ := os.ReadFile(filepath.Join(dirs[1], "leaderboard.json"))
	if !bytes.Equal(a, b) {
		t.Errorf("leaderboard.json differs between identical sweeps")
	}

	// tune leaderboard reprints it; tune runs lists both runs.
	out, _, code := e.run("leaderboard", "--format", "json")
	if code != 0 || out != string(b) {
		t.Errorf("tune leaderboard --format json: exit %d, differs from the file", code)
	}
	out, _, code = e.run("runs")
	if code != 0 || strings.Count(out, "done") != 2 {
		t.Errorf("tune runs: exit %d\n%s", code, out)
	}
}

func TestSweepBadInputStartsNothing(t *testing.T) {
	e := newSweepEnv(t, sweepSettings)
	for _, tc := range []struct{ name, exp, want string }{
		{"negative-k", `{"experiments": [{"name": "bad", "params": {"fusion.k": -1}}]}`, `bad.json:1:57: experiments[0].params.fusion.k: must be > 0 and at most 1e+06 (got -1)`},
		{"unknown-param", `{"baseline": {"params": {"fusion.kk": 1}}}`, `bad.json:1:26: baseline.params.fusion.kk: unknown parameter "fusion.kk"`},
		{"engine-rejects", `{"baseline": {"params": {"dense.model": "word2vec-300"}}}`, `trial "baseline": engine config`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			exp := e.write("bad.json", tc.exp)
			_, stderr, code := e.run("--experiments", exp)
			if code != 2 {
				t.Errorf("exit %d, want 2", code)
			}
			if !strings.Contains(stderr, tc.want) {
				t.Errorf("stderr lacks %q:\n%s", tc.want, stderr)
			}
			if dirs := e.runDirs(); len(dirs) != 0 {
				t.Errorf("run directory written: %v", dirs)
			}
		})
	}
}

func TestSweepInterruptThenResume(t *testing.T) {
	e := newSweepEnv(t, sweepSettings)
	var grid []string
	for k := 1; k <= 12; k++ {
		grid = append(grid, fmt.Sprint(k*5))
	}
	exp := e.write("long.json", `{"baseline": {"params": {"fusion.k": 60}}, "grid": {"fusion.k": [`+strings.Join(grid, ",")+`]}}`)
	stderr := e.interruptAfterTwoTrials("--experiments", exp, "--mode", "live")
	if !strings.Contains(stderr, "--resume") {
		t.Errorf("no resume hint:\n%s", stderr)
	}
	dirs := e.runDirs()
	if len(dirs) != 1 {
		t.Fatalf("runs: %v", dirs)
	}
	before, _ := filepath.Glob(filepath.Join(dirs[0], "trials", "[0-9][0-9][0-9].json"))
	id := filepath.Base(dirs[0])
	stdout, errOut, code := e.run("--experiments", exp, "--mode", "live", "--resume", id)
	if code != 0 {
		t.Fatalf("resume: exit %d\n%s", code, errOut)
	}
	if !strings.Contains(errOut, fmt.Sprintf("(%d resumed)", len(before))) {
		t.Errorf("resume did not report %d finished trials:\n%s", len(before), errOut)
	}
	after, _ := filepath.Glob(filepath.Join(dirs[0], "trials", "[0-9][0-9][0-9].json"))
	// 12 grid points + the baseline, less k=60 which repeats the baseline.
	if len(after) != 12 {
		t.Errorf("%d trial records after resume, want 12", len(after))
	}
	if n := strings.Count(stdout, "ok (live)"); n != 12 {
		t.Errorf("%d ok trials in the leaderboard, want 12:\n%s", n, stdout)
	}
	if len(e.runDirs()) != 1 {
		t.Errorf("resume created a new run")
	}
}

func TestApplyBestThenRollback(t *testing.T) {
	e, prod, orig := newProductionEnv(t)
	exp := e.write("exp.json", `{"baseline": {"params": {"fusion.k": 60}}, "experiments": [{"name": "bm25-only", "params": {"retrievers": ["bm25"]}}, {"name": "linear", "params": {"fusion.method": "linear"}}]}`)
	// The baseline wins here, which the promotion policy refuses
	// (TestPromotionPolicyOnDemo); --force tests the mechanics.
	stdout, stderr, code := e.run("--experiments", exp, "--apply-best", "--force")
	if code != 0 {
		t.Fatalf("--apply-best: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, "promoted ") {
		t.Errorf("no promotion reported:\n%s", stdout)
	}
	promoted, _ := os.ReadFile(prod)
	if bytes.Equal(promoted, orig) {
		t.Fatal("production config unchanged after --apply-best")
	}
	journal, err := os.ReadFile(filepath.Join(e.dir, "runs", "promotions.jsonl"))
	if err != nil || !strings.Contains(string(journal), `"status":"ok"`) {
		t.Errorf("promotions.jsonl: %v\n%s", err, journal)
	}
	if _, stderr, code := e.run("rollback"); code != 0 {
		t.Fatalf("rollback: exit %d\n%s", code, stderr)
	}
	restored, _ := os.ReadFile(prod)
	if !bytes.Equal(restored, orig) {
		t.Errorf("production config not restored byte for byte:\n%s", restored)
	}
	// tune apply RUN without a trial promotes the run's best.
	best, _, code := e.run("leaderboard", "--format", "csv")
	if code != 0 {
		t.Fatalf("leaderboard: exit %d", code)
	}
	first := strings.Split(strings.Split(best, "\n")[1], ",")
	stdout, stderr, code = e.run("apply", "latest", "--force")
	if code != 0 || !strings.Contains(stdout, "promoted "+first[1]+" ") {
		t.Errorf("apply latest: exit %d, want the best (%v) promoted\n%s\n%s", code, first[:2], stdout, stderr)
	}
}

// TestApplyOnlyFromRunsDir: tune apply promotes only from a run of the
// runs directory; a run outside it (named by its path) is refused, exit 2
// and nothing changed, unless --allow-outside-runs says otherwise. Reading
// it (tune leaderboard PATH) is allowed.
func TestApplyOnlyFromRunsDir(t *testing.T) {
	e, prod, orig := newProductionEnv(t)
	exp := e.write("exp.json", `{"baseline": {"params": {"fusion.k": 60}}, "experiments": [{"name": "bm25-only", "params": {"retrievers": ["bm25"]}}]}`)
	run, _, _ := e.newRun(t, "--experiments", exp)
	outside := filepath.Join(e.dir, "elsewhere", filepath.Base(run))
	if err := os.MkdirAll(filepath.Dir(outside), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(run, outside); err != nil {
		t.Fatal(err)
	}
	if _, stderr, code := e.run("leaderboard", outside); code != 0 {
		t.Errorf("reading a run outside the runs directory: exit %d\n%s", code, stderr)
	}
	_, stderr, code := e.run("apply", outside, "bm25-only", "--force")
	if code != 2 || !strings.Contains(stderr, "is outside the runs directory") || !strings.Contains(stderr, "--allow-outside-runs") {
		t.Errorf("apply from outside: exit %d, want 2 naming --allow-outside-runs\n%s", code, stderr)
	}
	if now, _ := os.ReadFile(prod); !bytes.Equal(now, orig) {
		t.Errorf("the refused apply changed the production config")
	}
	if stdout, stderr, code := e.run("apply", outside, "bm25-only", "--force", "--allow-outside-runs"); code != 0 || !strings.Contains(stdout, "promoted bm25-only") {
		t.Errorf("apply --allow-outside-runs: exit %d\n%s\n%s", code, stdout, stderr)
	}
}

// newProductionEnv is a sweep environment whose settings promote into a
// production engine config, prod.yaml (its path and original bytes).
func newProductionEnv(t *testing.T) (*sweepEnv, string, []byte) {
	t.Helper()
	corpus, err := filepath.Abs("../../experiments/demo/corpus.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	e := newSweepEnv(t, "")
	prod := e.write("prod.yaml", "# production engine config\ncorpus:\n  path: "+corpus+"\nfusion:\n  method: rrf\n  k: 60\n")
	orig, _ := os.ReadFile(prod)
	e.write("tune.yaml", sweepSettings+"backend:\n  config: prod.yaml\n  engine:\n    dense:\n      model: hash-384\n")
	return e, prod, orig
}
