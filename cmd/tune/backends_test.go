package main_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fusiontune/fusiontune/cmd/tune/internal/sweeptest"
)

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

func absPath(t *testing.T, rel string) string {
	t.Helper()
	p, err := filepath.Abs(rel)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// waitHealthy polls url until it answers 200.
func waitHealthy(t *testing.T, url string) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		resp, err := http.Get(url)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s not healthy: %v", url, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// foreignService is a `tune serve` started by the test as if it were
// someone else's service: its own config file and address, restarted only
// through scripts/restart-service.sh and its pid file.
type foreignService struct {
	e        *sweepEnv
	addr     string
	config   string // search.yaml, the service's own config
	original []byte // its bytes before any sweep
	restart  []string
}

// startForeignService writes the service's hand-written config and the
// README's http settings (tune.yaml, search.yaml.tmpl) into e, and starts
// the service through the restart script.
func startForeignService(t *testing.T, e *sweepEnv) *foreignService {
	t.Helper()
	s := &foreignService{e: e, addr: freeAddr(t)}
	r := strings.NewReplacer("127.0.0.1:8091", s.addr, "bin/tune", tuneBinary(t),
		"scripts/restart-service.sh", absPath(t, "../../scripts/restart-service.sh"),
		"experiments/demo/corpus.jsonl", absPath(t, "../../experiments/demo/corpus.jsonl"), "tuning_runs", "runs")
	e.write("tune.yaml", sweeptest.README(t, "http/tune.yaml", r))
	e.write("search.yaml.tmpl", sweeptest.README(t, "process/engine.yaml.tmpl", r))
	s.original = []byte("# the search team's config: hand written, with comments\ncorpus:   {path: \"" +
		absPath(t, "../../experiments/demo/corpus.jsonl") + "\"}\ncache_dir: " + filepath.Join(e.dir, ".cache", "engine") +
		"\ndense:\n  model: hash-384   # keep\nfusion: {method: rrf, k: 60}\n")
	s.config = e.write("search.yaml", string(s.original))
	s.restart = []string{absPath(t, "../../scripts/restart-service.sh"), "search.pid", "search.log",
		tuneBinary(t), "serve", "--config", "search.yaml", "--listen", s.addr}
	cmd := exec.Command(s.restart[0], s.restart[1:]...)
	cmd.Dir = e.dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("start the service: %v\n%s", err, out)
	}
	t.Cleanup(func() {
		if pid := s.pid(); pid > 0 {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	waitHealthy(t, "http://"+s.addr+"/healthz")
	return s
}

func (s *foreignService) pid() int {
	data, _ := os.ReadFile(filepath.Join(s.e.dir, "search.pid"))
	pid, _ := strconv.Atoi(strings.TrimSpace(string(data)))
	return pid
}

// starts counts how often the service came up (tune serve logs one
// "listening" line per start).
func (s *foreignService) starts() int {
	data, _ := os.ReadFile(filepath.Join(s.e.dir, "search.log"))
	return strings.Count(string(data), "tune serve: listening on")
}

// checkAsFound fails unless the service's config holds its original bytes
// and the service answers.
func (s *foreignService) checkAsFound(t *testing.T) {
	t.Helper()
	got, err := os.ReadFile(s.config)
	if err != nil || !bytes.Equal(got, s.original) {
		t.Errorf("the service's config was not restored byte for byte (%v):\n%s", err, got)
	}
	waitHealthy(t, "http://"+s.addr+"/healthz")
}

type leaderboardFile struct {
	Trials []struct {
		Name    string  `json:"name"`
		Status  string  `json:"status"`
		Primary float64 `json:"primary"`
	} `json:"trials"`
}

func readLeaderboard(t *testing.T, run string) map[string]float64 {
	t.Helper()
	var lb leaderboardFile
	data, err := os.ReadFile(filepath.Join(run, "leaderboard.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &lb); err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, tr := range lb.Trials {
		if tr.Status != "ok" {
			t.Errorf("trial %s: status %s", tr.Name, tr.Status)
		}
		out[tr.Name] = tr.Primary
	}
	return out
}

func trialConfig(t *testing.T, run, name string) string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(run, "trials", "[0-9][0-9][0-9].json"))
	for _, f := range files {
		var rec struct {
			Name          string `json:"name"`
			BackendConfig string `json:"backend_config"`
		}
		data, _ := os.ReadFile(f)
		if json.Unmarshal(data, &rec) == nil && rec.Name == name {
			return rec.BackendConfig
		}
	}
	t.Fatalf("run %s has no trial %q", run, name)
	return ""
}

const threeTrials = `{"baseline": {"params": {"fusion.k": 60}}, "experiments": [{"name": "k=5", "params": {"fusion.k": 5}}, {"name": "bm25-only", "params": {"retrievers": ["bm25"]}}]}`

// TestReadmeHTTPExample sweeps a service the tuner does not own, through
// the README's http settings: every trial rewrites the service's config and
// really restarts it with the restart command; afterwards the config holds
// its original bytes and the service runs again. Then tune apply promotes a
// trial into it and tune rollback restores it.
func TestReadmeHTTPExample(t *testing.T) {
	e := newSweepEnv(t, "")
	e.env = append(e.env, "SEARCH_AUTH=Bearer secret-value-123")
	svc := startForeignService(t, e)
	exp := e.write("exp.json", threeTrials)
	stdout, stderr, code := e.run("--experiments", exp)
	if code != 0 {
		t.Fatalf("sweep: exit %d\n%s\n%s", code, stdout, stderr)
	}
	for _, want := range []string{"baseline", "k=5", "bm25-only"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("leaderboard lacks %s:\n%s", want, stdout)
		}
	}
	for _, want := range []string{"is backed up to", "3 backend restarts", "tuner overhead"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	svc.checkAsFound(t)
	// The first start, one per trial, one to come back on the original.
	if n := svc.starts(); n != 5 {
		t.Errorf("the service started %d times, want 5", n)
	}
	runs := e.runDirs()
	if len(runs) != 1 {
		t.Fatalf("runs: %v", runs)
	}
	run := runs[0]
	lb := readLeaderboard(t, run)
	if len(lb) != 3 || lb["bm25-only"] == lb["baseline"] || lb["k=5"] == lb["baseline"] {
		t.Errorf("trials did not reach the service (primaries %v)", lb)
	}
	if backup, _ := os.ReadFile(filepath.Join(run, "backend", "original-search.yaml")); !bytes.Equal(backup, svc.original) {
		t.Errorf("backup in the run directory: %q", backup)
	}
	settings, _ := os.ReadFile(filepath.Join(run, "settings.json"))
	if bytes.Contains(settings, []byte("secret-value-123")) || !bytes.Contains(settings, []byte("health_url")) && !bytes.Contains(settings, []byte("HealthURL")) {
		t.Errorf("settings snapshot leaks the header secret or lacks the backend:\n%s", settings)
	}
	manifest, _ := os.ReadFile(filepath.Join(run, "manifest.json"))
	if !bytes.Contains(manifest, []byte(`"overhead_share"`)) {
		t.Errorf("manifest has no timings:\n%s", manifest)
	}

	// Promotion writes the trial's config into the service's file and
	// restarts it; rollback restores the original bytes. (bm25-only is
	// worse than the baseline: --force tests the mechanics, the policy has
	// its own tests.)
	out, errOut, code := e.run("apply", filepath.Base(run), "bm25-only", "--force")
	if code != 0 {
		t.Fatalf("tune apply: exit %d\n%s\n%s", code, out, errOut)
	}
	if got, _ := os.ReadFile(svc.config); string(got) != trialConfig(t, run, "bm25-only") {
		t.Errorf("promoted config differs from the trial's:\n%s", got)
	}
	if n := svc.starts(); n != 6 {
		t.Errorf("the service started %d times after tune apply, want 6", n)
	}
	if _, errOut, code := e.run("rollback"); code != 0 {
		t.Fatalf("tune rollback: exit %d\n%s", code, errOut)
	}
	svc.checkAsFound(t)
}

// TestHTTPBackendInterruptRestores interrupts an http sweep with SIGINT
// mid-run: the service's config gets its original bytes back and the
// service runs again.
func TestHTTPBackendInterruptRestores(t *testing.T) {
	e := newSweepEnv(t, "")
	e.env = append(e.env, "SEARCH_AUTH=x")
	svc := startForeignService(t, e)
	exp := e.write("long.json", `{"baseline": {"params": {"fusion.k": 60}}, "grid": {"fusion.k": [5, 10, 15, 20, 25, 30, 35, 40, 45, 50]}}`)
	e.interruptAfterTwoTrials("--experiments", exp)
	svc.checkAsFound(t)
}

// TestReadmeProcessExample sweeps through the README's process settings
// (the tuner starts `tune serve` itself on the rendered template) and
// checks that every trial scores exactly what the embedded kind gives for
// the same parameters; --apply-best then promotes the winner into
// backend.config, and tune rollback restores its bytes.
func TestReadmeProcessExample(t *testing.T) {
	e := newSweepEnv(t, "")
	r := strings.NewReplacer("127.0.0.1:8092", freeAddr(t), "bin/tune", tuneBinary(t),
		"experiments/demo/corpus.jsonl", absPath(t, "../../experiments/demo/corpus.jsonl"), "tuning_runs", "runs")
	e.write("tune.yaml", sweeptest.README(t, "process/tune.yaml", r))
	e.write("engine.yaml.tmpl", sweeptest.README(t, "process/engine.yaml.tmpl", r))
	prodOrig := "# production\ncorpus: {path: " + absPath(t, "../../experiments/demo/corpus.jsonl") + "}\ncache_dir: " +
		filepath.Join(e.dir, ".cache", "engine") + "\ndense: {model: hash-384}\n"
	prod := e.write("prod-engine.yaml", prodOrig)
	exp := e.write("exp.json", threeTrials)
	stdout, stderr, code := e.run("--experiments", exp, "--apply-best", "--force")
	if code != 0 {
		t.Fatalf("sweep: exit %d\n%s\n%s", code, stdout, stderr)
	}
	run := e.runDirs()[0]
	got := readLeaderboard(t, run)
	if _, err := os.Stat(filepath.Join(run, "backend", "engine.yaml")); err != nil {
		t.Errorf("rendered config not in the run directory: %v", err)
	}
	best, bestScore := "", -1.0
	for name, p := range got {
		if p > bestScore || (p == bestScore && name < best) {
			best, bestScore = name, p
		}
	}
	if data, _ := os.ReadFile(prod); string(data) != trialConfig(t, run, best) {
		t.Errorf("--apply-best wrote something other than %s's config:\n%s", best, data)
	}
	if _, errOut, code := e.run("rollback"); code != 0 {
		t.Fatalf("rollback: exit %d\n%s", code, errOut)
	}
	if data, _ := os.ReadFile(prod); string(data) != prodOrig {
		t.Errorf("rollback did not restore prod-engine.yaml:\n%s", data)
	}

	// The embedded kind on the same parameters scores the same.
	e2 := newSweepEnv(t, "runs_dir: runs\n")
	exp2 := e2.write("exp.json", threeTrials)
	if out, errOut, code := e2.run("--experiments", exp2); code != 0 {
		t.Fatalf("embedded sweep: exit %d\n%s\n%s", code, out, errOut)
	}
	want := readLeaderboard(t, e2.runDirs()[0])
	if len(got) != 3 || len(want) != 3 {
		t.Fatalf("trials: process %v, embedded %v", got, want)
	}
	for name, p := range want {
		if got[name] != p {
			t.Errorf("trial %s: process kind %v, embedded kind %v", name, got[name], p)
		}
	}
}

// TestBackendSettingsErrors checks that bad process/http settings fail
// with exit 2, naming the field, before any run directory exists.
func TestBackendSettingsErrors(t *testing.T) {
	e := newSweepEnv(t, "")
	e.write("t.yaml.tmpl", "fusion: {k: {{ .fusion.k }}}\n")
	e.write("t2.yaml.tmpl", "retrievers: {{ .retrievers }}\n")
	e.write("svc.yaml", "a: 1\n")
	exp := e.write("exp.json", threeTrials)
	const search = "  health_url: http://127.0.0.1:1/healthz\n  search: {url: \"http://127.0.0.1:1/search\", hits: hits, id: doc_id}\n"
	for _, tc := range []struct{ name, settings, want string }{
		{"unknown kind", "backend: {kind: grpc}\n", `backend.kind: must be embedded, process, http, postgres, weaviate, command or lancedb (got "grpc")`},
		{"process without command", "backend:\n  kind: process\n  template: t.yaml.tmpl\n" + search, "backend.command: required"},
		{"http without restart", "backend:\n  kind: http\n  config: svc.yaml\n  template: t.yaml.tmpl\n" + search, "backend.restart: required"},
		{"http without config", "backend:\n  kind: http\n  restart: [/bin/true]\n  template: t.yaml.tmpl\n" + search, "backend.config: required"},
		{"toml config", "backend:\n  kind: http\n  config: svc.toml\n  restart: [/bin/true]\n  template: t.yaml.tmpl\n" + search, `backend.config: unknown config format: "svc.toml"`},
		{"no search", "backend:\n  kind: process\n  command: [x]\n  template: t.yaml.tmpl\n", "backend.search.url: required"},
		{"bad health url", "backend:\n  kind: process\n  command: [x]\n  template: t.yaml.tmpl\n  health_url: localhost:80\n  search: {url: \"http://h/s\", hits: h, id: i}\n", `backend.health_url: want an http:// or https:// URL (got "localhost:80")`},
		{"secret in headers_env", "backend:\n  kind: process\n  command: [x]\n  template: t.yaml.tmpl\n  health_url: http://h/x\n  search: {url: \"http://h/s\", hits: h, id: i, headers_env: {Authorization: \"Bearer abc\"}}\n", "backend.search.headers_env.authorization: want the name of an environment variable"},
		{"unset env", "backend:\n  kind: process\n  command: [x]\n  template: t.yaml.tmpl\n  health_url: http://h/x\n  search: {url: \"http://h/s\", hits: h, id: i, headers_env: {X-Key: TUNE_TEST_UNSET_VAR}}\n", "backend.search.headers_env.x-key: environment variable TUNE_TEST_UNSET_VAR is not set"},
		{"embedded with command", "backend: {command: [x]}\n", "backend.command: only for backend.kind process"},
		{"missing template", "backend:\n  kind: process\n  command: [x]\n  template: nope.yaml.tmpl\n" + search, `tune.yaml:5:13: backend.template: "nope.yaml.tmpl" (resolved against the settings file's directory to nope.yaml.tmpl): no such file or directory`},
		{"template needs a param", "backend:\n  kind: http\n  config: svc.yaml\n  restart: [/bin/true]\n  template: t2.yaml.tmpl\n" + search, `trial "baseline": backend.template: t2.yaml.tmpl:1:15: executing "t2.yaml.tmpl" at <.retrievers>: map has no entry for key "retrievers"`},
		{"bad vectors model", "backend:\n  kind: process\n  command: [x]\n  template: t.yaml.tmpl\n  vectors: {model: lsa-x}\n" + search, `backend.vectors.model: embed: "lsa-x": dimension must be an integer`},
		{"postgres without url", "backend: {kind: postgres}\n", "backend.postgres.url: required"},
		{"postgres with a template", "backend:\n  kind: postgres\n  template: t.yaml.tmpl\n  postgres: {url: \"postgres://u@127.0.0.1:1/db\"}\n", "backend.template: not for backend.kind postgres"},
		{"postgres unparsable url", "backend:\n  kind: postgres\n  postgres: {url: \"postgres://u:Bearer abc@127.0.0.1:1/db\"}\n", "backend.postgres.url: want postgres://user@host:port/database (the URL does not parse"},
		{"postgres password in url", "backend:\n  kind: postgres\n  postgres: {url: \"postgres://u:Bearer@127.0.0.1:1/db\"}\n", "backend.postgres.url: a URL with a password"},
		{"postgres trial param", "backend:\n  kind: postgres\n  postgres: {url: \"postgres://u@127.0.0.1:1/db\", model: lsa-32}\n", `trial "bm25-only": postgres: retrievers: not a postgres kind parameter`},
		{"bad body template", "backend:\n  kind: process\n  command: [x]\n  template: t.yaml.tmpl\n  health_url: http://h/x\n  search: {url: \"http://h/s\", body: \"{{ .query \", hits: h, id: i}\n", "backend.search.body: search.body:1: unclosed action"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e.write("tune.yaml", "runs_dir: runs\n"+tc.settings)
			_, stderr, code := e.run("--experiments", exp)
			if code != 2 {
				t.Errorf("exit %d, want 2\n%s", code, stderr)
			}
			if !strings.Contains(stderr, tc.want) {
				t.Errorf("stderr lacks %q:\n%s", tc.want, stderr)
			}
			if strings.Contains(stderr, "Bearer abc") {
				t.Errorf("the error echoes a secret:\n%s", stderr)
			}
			if dirs := e.runDirs(); len(dirs) != 0 {
				t.Errorf("run directory written: %v", dirs)
			}
		})
	}
}

// interruptAfterTwoTrials runs tune with args, sends SIGINT once two trials
// are on disk, checks that it exits 1, and returns its stderr.
func (e *sweepEnv) interruptAfterTwoTrials(args ...string) string {
	e.t.Helper()
	cmd, _, stderr := e.command(args...)
	if err := cmd.Start(); err != nil {
		e.t.Fatal(err)
	}
	deadline := time.Now().Add(2 * time.Minute)
	for {
		if m, _ := filepath.Glob(filepath.Join(e.dir, "runs", "*", "trials", "001.json")); len(m) > 0 {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			e.t.Fatalf("no trial recorded in time:\n%s", stderr)
		}
		time.Sleep(20 * time.Millisecond)
	}
	cmd.Process.Signal(syscall.SIGINT)
	err := cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		e.t.Fatalf("interrupted sweep: %v\n%s", err, stderr)
	}
	return stderr.String()
}

// TestHTTPSweepsShareNoService: two http sweeps on the same service's
// config (backend.config), with different runs directories, started side
// by side: the second is refused at once (exit 1), naming the first's pid
// and command line, and writes no run; the first runs to the end and
// leaves the service's config as found. A study with --parallel replicas
// of one http service is refused before anything runs (exit 2).
func TestHTTPSweepsShareNoService(t *testing.T) {
	e := newSweepEnv(t, "")
	e.env = append(e.env, "SEARCH_AUTH=Bearer secret-value-123")
	svc := startForeignService(t, e)
	exp := longExperiment(e)
	first, _, ferr := e.command("--experiments", exp, "--mode", "live")
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	defer first.Process.Kill()
	waitFor(t, 2*time.Minute, "the first sweep's run", func() bool { return len(e.runDirs()) == 1 })

	_, stderr, code := e.run("--experiments", exp, "--mode", "live", "--runs-dir", "other-runs")
	want := fmt.Sprintf("production config %s is in use by another tuner (pid %d, started ", svc.config, first.Process.Pid)
	if code != 1 || !strings.Contains(stderr, want) || !strings.Contains(stderr, "tune --experiments "+exp+" --mode live)") {
		t.Errorf("second sweep on the same service: exit %d, want 1 and %q with the first's command line\n%s", code, want, stderr)
	}
	if runs, _ := filepath.Glob(filepath.Join(e.dir, "other-runs", "2*")); len(runs) != 0 {
		t.Errorf("the refused sweep created a run: %v", runs)
	}
	// A worker of a shared study on the same service is refused alike.
	_, stderr, code = e.run("worker", "--experiments", exp, "--storage", "sqlite:///s.db", "--study", "s", "--runs-dir", "other-runs")
	if code != 1 || !strings.Contains(stderr, want) {
		t.Errorf("worker on the same service: exit %d, want 1 and %q\n%s", code, want, stderr)
	}
	if err := first.Wait(); err != nil {
		t.Fatalf("first sweep: %v\n%s", err, ferr)
	}
	svc.checkAsFound(t)

	_, stderr, code = e.run("--experiments", exp, "--parallel", "2", "--runs-dir", "other-runs")
	if code != 2 || !strings.Contains(stderr, "--parallel 2: an http backend is one service") {
		t.Errorf("--parallel 2 on one http service: exit %d\n%s", code, stderr)
	}
	// Released at exit: the next sweep on the service runs.
	if _, stderr, code := e.run("--experiments", exp, "--runs-dir", "other-runs"); code != 0 || strings.Contains(stderr, "stale") {
		t.Errorf("after the first sweep: exit %d\n%s", code, stderr)
	}
	svc.checkAsFound(t)
}

// TestSweepsShareNoServiceThroughSymlink: a second sweep naming the
// service's config through a symbolic link is refused while the first
// runs (the lock is the file's, not the path's); a sweep through the link
// leaves it a link, the service's config restored byte for byte.
func TestSweepsShareNoServiceThroughSymlink(t *testing.T) {
	e := newSweepEnv(t, "")
	e.env = append(e.env, "SEARCH_AUTH=Bearer secret-value-123")
	svc := startForeignService(t, e)
	if err := os.Mkdir(filepath.Join(e.dir, "other"), 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(e.dir, "other", "live.yaml")
	if err := os.Symlink("../search.yaml", link); err != nil {
		t.Fatal(err)
	}
	settings, err := os.ReadFile(filepath.Join(e.dir, "tune.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	linked := e.write("linked.yaml", strings.Replace(string(settings), "config: search.yaml", "config: "+link, 1))
	if linked == "" || !strings.Contains(string(settings), "config: search.yaml") {
		t.Fatalf("the settings name no config: search.yaml:\n%s", settings)
	}
	exp := longExperiment(e)
	first, _, ferr := e.command("--experiments", exp, "--mode", "live")
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	defer first.Process.Kill()
	for deadline := time.Now().Add(2 * time.Minute); len(e.runDirs()) != 1; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no run of the first sweep\n%s", ferr)
		}
	}

	_, stderr, code := e.run("--config", linked, "--experiments", exp, "--mode", "live", "--runs-dir", "other-runs")
	if code != 1 || !strings.Contains(stderr, "is in use by another tuner (pid "+strconv.Itoa(first.Process.Pid)) {
		t.Errorf("second sweep through a symlink: exit %d, want 1 naming the first sweep\n%s", code, stderr)
	}
	if err := first.Wait(); err != nil {
		t.Fatalf("first sweep: %v\n%s", err, ferr)
	}
	svc.checkAsFound(t)
	if _, stderr, code := e.run("--config", linked, "--experiments", e.write("exp.json", threeTrials), "--runs-dir", "other-runs"); code != 0 {
		t.Fatalf("sweep through the link: exit %d\n%s", code, stderr)
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link is no longer a link after a sweep through it (%v)", err)
	}
	svc.checkAsFound(t)
}
