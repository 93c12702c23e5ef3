package main_test

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"io/fs"
	"log"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// fakeEmbeddings is an OpenAI-compatible /v1/embeddings server on
// 127.0.0.1 that requires "Authorization: Bearer key". The model "echo"
// answers 401 with the header it got in the body, as careless servers do.
func fakeEmbeddings(t *testing.T, key string) (*httptest.Server, *atomic.Int64) {
	var authorized atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Model string   `json:"model"`
			Input []string `json:"input"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		got := r.Header.Get("Authorization")
		if got != "Bearer "+key || req.Model == "echo" {
			w.WriteHeader(http.StatusUnauthorized)
			json.NewEncoder(w).Encode(map[string]string{"error": "invalid credentials: " + got})
			return
		}
		authorized.Add(1)
		type item struct {
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		}
		var data []item
		for i, text := range req.Input {
			v := make([]float32, 16)
			for _, word := range strings.Fields(strings.ToLower(text)) {
				h := fnv.New32a()
				h.Write([]byte(word))
				v[h.Sum32()%16]++
			}
			v[0] += 0.01
			data = append(data, item{Index: i, Embedding: v})
		}
		json.NewEncoder(w).Encode(map[string]any{"data": data})
	}))
	t.Cleanup(srv.Close)
	return srv, &authorized
}

// TestSecretsNeverWritten runs a sweep whose dense retriever authenticates
// with a key from the environment (one trial's server even echoes it back
// in an error): the key is used, and appears in no file written (run
// directory, backend log, caches) nor on stdout or stderr.
func TestSecretsNeverWritten(t *testing.T) {
	const key = "sk-test-7f3a9c1e5b2d4f60a8"
	srv, authorized := fakeEmbeddings(t, key)
	e := newSweepEnv(t, sweepSettings+"backend:\n  engine:\n    dense:\n      model: openai:good\n      base_url: "+srv.URL+"\n      api_key_env: FT_TEST_EMBED_KEY\n")
	e.env = append(e.env, "FT_TEST_EMBED_KEY="+key, "FUSIONTUNE_TEST_TOKEN="+key+"-other")
	exp := e.write("exp.json", `{"baseline": {"params": {"fusion.k": 60}}, "experiments": [{"name": "echo", "params": {"dense.model": "openai:echo"}}]}`)
	stdout, stderr, code := e.run("--experiments", exp)
	if code != 3 {
		t.Fatalf("exit %d, want 3 (the echo trial fails)\n%s\n%s", code, stdout, stderr)
	}
	if authorized.Load() == 0 {
		t.Fatal("the key was never sent: the test proves nothing")
	}
	serveLog, _ := filepath.Glob(filepath.Join(e.dir, "runs", "*", "backend", "serve.log"))
	if len(serveLog) != 1 {
		t.Fatal("no serve.log")
	}
	if data, _ := os.ReadFile(serveLog[0]); !strings.Contains(string(data), "invalid credentials: Bearer [redacted]") {
		t.Errorf("the echoed key is not visibly redacted in serve.log:\n%s", data)
	}
	files := 0
	filepath.WalkDir(e.dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		files++
		data, err := os.ReadFile(p)
		if err != nil {
			t.Errorf("read %s: %v", p, err)
			return nil
		}
		if strings.Contains(string(data), key) || strings.Contains(string(data), key[3:15]) {
			t.Errorf("secret written to %s", p)
		}
		return nil
	})
	if files < 10 {
		t.Errorf("only %d files walked", files)
	}
	for name, out := range map[string]string{"stdout": stdout, "stderr": stderr} {
		if strings.Contains(out, key) {
			t.Errorf("secret on %s", name)
		}
	}
	var settings map[string]any
	data, _ := os.ReadFile(filepath.Join(filepath.Dir(filepath.Dir(serveLog[0])), "settings.json"))
	if err := json.Unmarshal(data, &settings); err != nil || !strings.Contains(string(data), `"api_key_env": "FT_TEST_EMBED_KEY"`) {
		t.Errorf("settings.json should keep the variable's name: %v\n%s", err, data)
	}
}

// TestRunPaths: a run is taken by id, by prefix or by any path to a run
// directory, inside the runs directory or not (reading a run the user
// points at is harmless); a path to something that is not a run is
// refused (exit 2), and --resume, which writes into the run, takes only
// runs inside the runs directory. Nothing is written outside it.
func TestRunPaths(t *testing.T) {
	e := newSweepEnv(t, sweepSettings)
	exp := e.write("exp.json", `{"baseline": {"params": {"fusion.k": 60}}}`)
	if _, stderr, code := e.run("--experiments", exp); code != 0 {
		t.Fatalf("sweep: exit %d\n%s", code, stderr)
	}
	run := e.runDirs()[0]
	// A copy of the run outside the runs directory.
	outside := filepath.Join(e.dir, "x")
	copyTree(t, run, outside)
	before := listTree(t, e.dir)
	for _, tc := range []struct {
		args []string
		code int
		want string // on stderr when refused
	}{
		{[]string{"leaderboard", filepath.Base(run)}, 0, ""},
		{[]string{"leaderboard", filepath.Join("runs", filepath.Base(run))}, 0, ""},
		{[]string{"leaderboard", run}, 0, ""},
		{[]string{"leaderboard", "../" + filepath.Base(e.dir) + "/x"}, 0, ""},
		{[]string{"leaderboard", "x"}, 0, ""},
		{[]string{"leaderboard", outside}, 0, ""},
		{[]string{"leaderboard", "runs/../x"}, 0, ""},
		{[]string{"gate", outside, "--config", "nogates.yaml"}, 2, "no gates"},
		{[]string{"leaderboard", "/etc"}, 2, `runs: "/etc" is not a run directory (no manifest.json)`},
		{[]string{"leaderboard", ".."}, 2, `runs: ".." is not a run directory`},
		{[]string{"leaderboard", "nope"}, 2, `runs: no run "nope" in runs`},
		{[]string{"--experiments", exp, "--resume", "../../etc"}, 2, "runs: "},
		{[]string{"--experiments", exp, "--resume", "../x"}, 2, "runs: "},
		{[]string{"--experiments", exp, "--resume", outside}, 2, "not a run directory inside the runs directory"},
		{[]string{"--resume", outside}, 2, "not a run directory inside the runs directory"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			e.write("nogates.yaml", sweepSettings)
			stdout, stderr, code := e.run(tc.args...)
			if code != tc.code {
				t.Errorf("exit %d, want %d\n%s\n%s", code, tc.code, stdout, stderr)
			}
			if tc.code == 0 && !strings.Contains(stdout, "baseline") {
				t.Errorf("no leaderboard:\n%s", stdout)
			}
			if tc.code != 0 && (!strings.Contains(stderr, tc.want) || stdout != "") {
				t.Errorf("stderr lacks %q (or stdout not empty):\n%s\n%s", tc.want, stderr, stdout)
			}
		})
	}
	os.Remove(filepath.Join(e.dir, "nogates.yaml"))
	after := listTree(t, e.dir)
	if extra := diff(after, before); len(extra) > 0 {
		t.Errorf("files written: %v", extra)
	}
}

// TestEchoedCredentialRedacted: an http service authenticated with
// SEARCH_AUTH='Bearer <token>' (backend.search.headers_env) that answers
// some queries 401 with the bare token, without its scheme word, as
// careless services do: the token appears in no file of the run
// directory (trials, per-query records, leaderboard, report, logs) nor on
// stdout or stderr, while the redacted error is visibly there.
func TestEchoedCredentialRedacted(t *testing.T) {
	const token = "sk-live-4e1b7c9d2a6f08e3"
	checkEchoRedacted(t, token, func(_ int64, cred string) string { return "invalid credentials: " + cred },
		[]string{token[3:]}, "invalid credentials: "+runsRedacted)
}

// TestEchoedEncodedCredentialRedacted: as TestEchoedCredentialRedacted,
// the service echoing the token URL-encoded (%2B, %2f), JSON-escaped
// ("\/") and case-changed, in turn: no form of it is written anywhere.
func TestEchoedEncodedCredentialRedacted(t *testing.T) {
	const token = "sk+live/4e1b7c9d2a6f08e3Q"
	forms := []string{
		url.QueryEscape(token), strings.ToLower(url.QueryEscape(token)), strings.ReplaceAll(token, "/", `\/`),
		strings.ToLower(token), strings.ToUpper(token), "4e1b7c9d2a6f08e3", "4E1B7C9D2A6F08E3",
	}
	echo := func(n int64, cred string) string {
		switch n % 5 {
		case 0:
			return "bad key " + url.QueryEscape(cred)
		case 1:
			return "bad key " + strings.ToLower(url.QueryEscape(cred))
		case 2:
			return "bad key " + strings.ReplaceAll(cred, "/", `\/`)
		case 3:
			return "bad key " + strings.ToLower(cred)
		}
		return "bad key " + strings.ToUpper(cred)
	}
	checkEchoRedacted(t, token, echo, forms, "bad key "+runsRedacted)
}

// checkEchoRedacted runs a sweep on an http service authenticated with
// SEARCH_AUTH='Bearer <token>' (backend.search.headers_env) that answers
// every fourth request 401 with a JSON error echo(n, credential) (n
// counts the refusals): none of forms appears in any file of the run
// directory (trials, per-query records, leaderboard, report, logs) nor
// on stdout or stderr, while shown (the redacted error) is visibly there.
func checkEchoRedacted(t *testing.T, token string, echo func(n int64, cred string) string, forms []string, shown string) {
	t.Helper()
	e := newSweepEnv(t, "")
	e.env = append(e.env, "SEARCH_AUTH=Bearer "+token)
	svc := startForeignService(t, e)
	target, err := url.Parse("http://" + svc.addr)
	if err != nil {
		t.Fatal(err)
	}
	forward := httputil.NewSingleHostReverseProxy(target)
	forward.ErrorLog = log.New(io.Discard, "", 0) // the service restarts under it between trials
	var requests, refused atomic.Int64
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if requests.Add(1)%4 == 0 {
			n := refused.Add(1)
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusUnauthorized)
			cred := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
			// Written by hand: an escaped "\/" is kept as the service sent it.
			fmt.Fprintf(w, "{\"error\": \"%s\"}\n", echo(n, cred))
			return
		}
		forward.ServeHTTP(w, r)
	}))
	t.Cleanup(proxy.Close)
	settings, err := os.ReadFile(filepath.Join(e.dir, "tune.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	// No retries: every refused request fails its query, so the echoed
	// error reaches the records whatever the order of the requests (with
	// retries a refused query usually succeeds on its next attempt).
	e.write("tune.yaml", strings.Replace(string(settings), "http://"+svc.addr+"/search", proxy.URL+"/search", 1)+"eval: {retries: 0}\n")
	exp := e.write("exp.json", threeTrials)
	stdout, stderr, code := e.run("--experiments", exp)
	if code == 2 || refused.Load() < 5 {
		t.Fatalf("exit %d, %d requests refused: the test proves nothing\n%s\n%s", code, refused.Load(), stdout, stderr)
	}
	svc.checkAsFound(t)
	seen := false
	files := map[string]bool{}
	filepath.WalkDir(e.dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			t.Errorf("read %s: %v", p, err)
			return nil
		}
		rel, _ := filepath.Rel(e.dir, p)
		files[filepath.Base(rel)] = true
		for _, f := range forms {
			if i := strings.Index(string(data), f); i >= 0 {
				t.Errorf("the token is written to %s as %q: …%s…", rel, f, data[max(i-40, 0):min(i+len(f)+20, len(data))])
			}
		}
		seen = seen || strings.Contains(string(data), shown)
		return nil
	})
	for _, want := range []string{"leaderboard.json", "report.html", "000.queries.jsonl"} {
		if !files[want] {
			t.Errorf("no %s written: the test does not cover it (files: %v)", want, files)
		}
	}
	if !seen && !strings.Contains(stderr, shown) {
		t.Errorf("the redacted error is shown nowhere\n%s", stderr)
	}
	for name, out := range map[string]string{"stdout": stdout, "stderr": stderr} {
		for _, f := range forms {
			if strings.Contains(out, f) {
				t.Errorf("the token is on %s as %q:\n%s", name, f, out)
			}
		}
	}
}

const runsRedacted = "[redacted]"

// TestSettingsURLPasswordsRedacted: a password in a URL of the settings
// (here judge.url) is written neither to the run's settings.json, which
// keeps the URL with the password redacted, nor anywhere else.
func TestSettingsURLPasswordsRedacted(t *testing.T) {
	const pw = "pw99-hunter-secret"
	e := newSweepEnv(t, "runs_dir: runs\njudge:\n  url: http://user:"+pw+"@127.0.0.1:9/v1\n  model: m\n")
	exp := e.write("exp.json", threeTrials)
	dir, stdout, stderr := e.newRun(t, "--experiments", exp)
	settings, err := os.ReadFile(filepath.Join(dir, "settings.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(settings), "http://user:"+runsRedacted+"@127.0.0.1:9/v1") {
		t.Errorf("settings.json does not keep the URL with its password redacted:\n%s", settings)
	}
	filepath.WalkDir(filepath.Join(e.dir, "runs"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if data, _ := os.ReadFile(p); strings.Contains(string(data), pw) {
			t.Errorf("the password is written to %s", p)
		}
		return nil
	})
	if strings.Contains(stdout+stderr, pw) {
		t.Errorf("the password is shown:\n%s\n%s", stdout, stderr)
	}
}
