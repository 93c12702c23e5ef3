package main_test

import (
	"bytes"
	"context"
	"io"
	"math"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/backend/backendtest"
	"github.com/fusiontune/fusiontune/backend/client"
	"github.com/fusiontune/fusiontune/backend/engine"
	"github.com/fusiontune/fusiontune/internal/querylog"
	"github.com/fusiontune/fusiontune/internal/trec"
	"github.com/fusiontune/fusiontune/metrics/stats"
)

// engineConfig writes an engine config over the engine's fixture corpus to
// a temporary directory, with extra YAML appended, and returns its path.
func engineConfig(t *testing.T, extra string) string {
	t.Helper()
	corpus, err := filepath.Abs("../../backend/engine/testdata/tiny/corpus.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	yaml := "corpus:\n  path: " + corpus + "\n  format: beir\nretrievers: [bm25, dense]\ndense:\n  model: hash-64\ncache_dir: cache\n" + extra
	p := filepath.Join(dir, "engine.yaml")
	if err := os.WriteFile(p, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestServeProcess(t *testing.T) {
	cfg := engineConfig(t, "")
	ready := filepath.Join(t.TempDir(), "ready")
	cmd := exec.Command(tuneBinary(t), "serve", "--config", cfg, "--listen", "127.0.0.1:0", "--ready-file", ready)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	defer func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			<-done
		}
	}()
	var addr string
	deadline := time.Now().Add(60 * time.Second)
	for addr == "" {
		if data, err := os.ReadFile(ready); err == nil {
			addr = strings.TrimSpace(string(data))
		} else if time.Now().After(deadline) {
			t.Fatalf("no ready file after 60s; stderr:\n%s", stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	cl, err := client.New(addr)
	if err != nil {
		t.Fatal(err)
	}
	if err := cl.Health(context.Background()); err != nil {
		t.Fatalf("ready file written before /healthz is 200: %v", err)
	}
	backendtest.Run(t, func(t *testing.T) backend.Searcher { return cl })
	// Per-request work is bounded: 1,025 terms (well under the body
	// limit) get 400 at once.
	resp, err := http.Post("http://"+addr+"/search", "application/json",
		strings.NewReader(`{"query": "`+strings.Repeat("light ", engine.DefaultMaxQueryTerms+1)+`"}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), "query: at most 1024 terms (got 1025") {
		t.Errorf("a 1025-term query: %d %s, want 400", resp.StatusCode, body)
	}

	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("after SIGTERM: %v (want exit 0); stderr:\n%s", err, stderr.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("no exit 30s after SIGTERM; stderr:\n%s", stderr.String())
	}
	if !strings.Contains(stderr.String(), "tune serve: listening on http://"+addr) {
		t.Errorf("stderr lacks the listen address:\n%s", stderr.String())
	}
}

func TestServeErrors(t *testing.T) {
	tests := []struct {
		name     string
		args     func(t *testing.T) []string
		wantCode int
		want     string
	}{
		{"no config", func(t *testing.T) []string { return []string{"serve"} }, 2, "serve: --config is required"},
		{"unknown key", func(t *testing.T) []string {
			return []string{"serve", "--config", engineConfig(t, "fusoin:\n  k: 3\n")}
		}, 2, "engine.yaml:8:1: fusoin: unknown key"},
		{"unknown embedder", func(t *testing.T) []string {
			return []string{"serve", "--config", writeTemp(t, "e.yaml", "corpus: {path: c.jsonl}\ndense: {model: word2vec}\n")}
		}, 2, `embed: unknown embedder "word2vec"`},
		{"max query terms 0", func(t *testing.T) []string {
			return []string{"serve", "--config", engineConfig(t, ""), "--max-query-terms", "0"}
		}, 2, "serve: --max-query-terms: want an integer in [1, 65536] (got 0)"},
		{"max query terms too high", func(t *testing.T) []string {
			return []string{"serve", "--config", engineConfig(t, ""), "--max-query-terms", "65537"}
		}, 2, "serve: --max-query-terms: want an integer in [1, 65536] (got 65537)"},
		{"listen flag without a port", func(t *testing.T) []string {
			return []string{"serve", "--config", engineConfig(t, ""), "--listen", "nonsense"}
		}, 2, `serve: --listen: want HOST:PORT such as "127.0.0.1:8099" (got "nonsense": missing port in address)`},
		{"listen flag with too many colons", func(t *testing.T) []string {
			return []string{"serve", "--config", engineConfig(t, ""), "--listen", "nonsense:::"}
		}, 2, `serve: --listen: want HOST:PORT`},
		{"listen flag with a port out of range", func(t *testing.T) []string {
			return []string{"serve", "--config", engineConfig(t, ""), "--listen", "127.0.0.1:70000"}
		}, 2, `serve: --listen: port must be a number from 0 to 65535 (got "70000" in "127.0.0.1:70000")`},
		{"listen in the config with a named port", func(t *testing.T) []string {
			return []string{"serve", "--config", writeTemp(t, "e.yaml", "corpus: {path: c.jsonl}\nretrievers: [bm25]\nlisten: 127.0.0.1:http\n")}
		}, 2, `e.yaml:3:1: listen: port must be a number from 0 to 65535 (got "http" in "127.0.0.1:http")`},
		// The engine config tune serve reads goes through the checks the
		// same keys get under the settings' backend.engine.
		{"fractional depth", strictServe("depth: 2.5"), 2, `e.yaml:3:8: depth: want an integer (got "2.5")`},
		{"fractional chunk size", strictServe("chunk: {size: 100.5}"), 2, `e.yaml:3:15: chunk.size: want an integer (got "100.5")`},
		{"fractional fusion depth", strictServe("fusion: {depth: 3.5}"), 2, `e.yaml:3:17: fusion.depth: want an integer (got "3.5")`},
		{"fractional max_retries", strictServe("dense: {model: hash-64, max_retries: 1.5}"), 2, `e.yaml:3:38: dense.max_retries: want an integer (got "1.5")`},
		{"NaN k1", strictServe("bm25: {k1: .nan}"), 2, `e.yaml:3:12: bm25.k1: want a finite number (got ".nan")`},
		{"NaN dense floor", strictServe("dense: {model: hash-64, min_score: .nan}"), 2, `e.yaml:3:36: dense.min_score: want a finite number (got ".nan")`},
		{"infinite min_score", strictServe("min_score: -.inf"), 2, `e.yaml:3:12: min_score: want a finite number (got "-.inf")`},
		{"all weights zero", strictServe("fusion: {weights: {bm25: 0, dense: 0}}"), 2, `e.yaml:3:10: fusion.weights: every fused retriever's weight is 0 (bm25, dense)`},
		{"rotate_bytes overflowing", strictServe("log: {path: q.log, rotate_bytes: 1e999}"), 2, `e.yaml:3:34: log.rotate_bytes: want an integer (got "1e999")`},
		{"base_url with a password", strictServe(`dense: {model: "openai:x", base_url: "http://user:pw99@127.0.0.1:1"}`), 2, `e.yaml:3:28: dense.base_url: a URL with credentials (user:password@)`},
		{"broken corpus", func(t *testing.T) []string {
			corpus, _ := filepath.Abs("../../backend/engine/testdata/broken/corpus.jsonl")
			return []string{"serve", "--config", writeTemp(t, "e.yaml", "corpus: {path: "+corpus+"}\nretrievers: [bm25]\nlisten: 127.0.0.1:0\n")}
		}, 1, "broken/corpus.jsonl:2: expected a JSON object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, stderr, code := runTune(t, t.TempDir(), tt.args(t)...)
			if code != tt.wantCode || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d stderr:\n%s\nwant exit %d and %q", code, stderr, tt.wantCode, tt.want)
			}
			if strings.Contains(stderr, "pw99") {
				t.Errorf("stderr shows the URL's password:\n%s", stderr)
			}
		})
	}
}

// strictServe returns the arguments of tune serve on an engine config
// (e.yaml) of a corpus, a free port and line 3, extra.
func strictServe(extra string) func(t *testing.T) []string {
	return func(t *testing.T) []string {
		corpus, _ := filepath.Abs("../../backend/engine/testdata/tiny/corpus.jsonl")
		return []string{"serve", "--config", writeTemp(t, "e.yaml", "corpus: {path: "+corpus+"}\nlisten: 127.0.0.1:0\n"+extra+"\n")}
	}
}

func writeTemp(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestSearchCommand(t *testing.T) {
	cfg := engineConfig(t, "")
	queries, _ := filepath.Abs("../../backend/engine/testdata/tiny/queries.jsonl")
	tsv := writeTemp(t, "q.tsv", "q2\twhy does bread rise with yeast\nq9\tmulch\n")
	for _, qf := range []string{queries, tsv} {
		t.Run(filepath.Base(qf), func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "run.trec")
			_, stderr, code := runTune(t, t.TempDir(), "search", "--config", cfg, "--queries", qf, "--k", "5", "--out", out, "--tag", "tiny")
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			data, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSpace(string(data)), "\n")
			perQuery := map[string]int{}
			for _, l := range lines {
				f := strings.Fields(l)
				if len(f) != 6 || f[1] != "Q0" || f[5] != "tiny" {
					t.Fatalf("bad run line %q", l)
				}
				perQuery[f[0]]++
				if perQuery[f[0]] == 1 && f[0] == "q2" && f[2] != "bread-1" {
					t.Errorf("q2 top document %s, want bread-1", f[2])
				}
			}
			if perQuery["q2"] != 5 {
				t.Errorf("q2 has %d results, want 5:\n%s", perQuery["q2"], data)
			}
		})
	}
	// --retriever bm25: BM25's own scores (not RRF's 1/(k+rank) sums).
	out := filepath.Join(t.TempDir(), "bm25.trec")
	if _, stderr, code := runTune(t, t.TempDir(), "search", "--config", cfg, "--queries", tsv, "--k", "3", "--retriever", "bm25", "--out", out); code != 0 {
		t.Fatalf("--retriever bm25: exit %d: %s", code, stderr)
	}
	run, err := trec.ReadRunFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if q2 := run.Queries["q2"]; len(q2) == 0 || len(q2) > 3 || q2[0].DocNo != "bread-1" || q2[0].Score <= 1 {
		t.Errorf("--retriever bm25: q2 = %v, want at most 3 results, bread-1 first with a BM25 score above 1", q2)
	}
	if _, stderr, code := runTune(t, t.TempDir(), "search", "--config", cfg, "--queries", tsv, "--retriever", "splade"); code != 2 || !strings.Contains(stderr, `search: --retriever: want bm25 or dense (got "splade")`) {
		t.Errorf("--retriever splade: exit %d %s", code, stderr)
	}
	_, stderr, code := runTune(t, t.TempDir(), "search", "--config", cfg, "--queries", writeTemp(t, "bad.tsv", "q1 no tab\n"))
	if code != 2 || !strings.Contains(stderr, "bad.tsv:1:1: expected `id<TAB>text`") {
		t.Errorf("bad queries: exit %d %s", code, stderr)
	}
}

// TestServeShadowLog: tune serve with a query log and a shadow config logs
// the shadow engine's answer to each sampled search with its diff against
// the served list: metrics/stats' comparison of the two, which the command
// hands the engine.
func TestServeShadowLog(t *testing.T) {
	dir := t.TempDir()
	logPath := filepath.Join(dir, "queries.jsonl")
	shadow := engineConfig(t, "fusion: {method: rrf, k: 1}\n")
	cfg := engineConfig(t, "log: {path: "+logPath+"}\nshadow: {config: "+shadow+", percent: 100}\n")
	addr, stop := startServe(t, cfg, dir)
	queries := []string{"telescope mirror", "moon phases", "light pollution in cities", "exoplanet orbit", "star colour temperature"}
	// The shadow engine builds in the background, and a search finding it
	// busy is not shadowed: search a while, slowly.
	for round := 0; round < 20; round++ {
		for _, q := range queries {
			resp, err := http.Post("http://"+addr+"/search", "application/json", strings.NewReader(`{"query": "`+q+`", "k": 5}`))
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			time.Sleep(10 * time.Millisecond)
		}
	}
	stop()
	log, err := querylog.Read([]string{logPath}, querylog.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(log.Shadows) == 0 {
		t.Fatalf("no shadow event among %d searches", len(log.Searches))
	}
	served := map[string][]string{}
	for _, e := range log.Searches {
		for _, r := range e.Results {
			served[e.RequestID] = append(served[e.RequestID], r.ID)
		}
	}
	differ := 0
	for _, e := range log.Shadows {
		a := served[e.RequestID]
		var b []string
		for _, r := range e.Results[:min(len(a), len(e.Results))] {
			b = append(b, r.ID)
		}
		want := stats.DiffLists(a, b, max(len(a), 1))
		d := e.Diff
		if d.Class != want.Class || d.Jaccard != want.Jaccard || d.Top1Changed != want.Top1Changed ||
			(d.KendallTau == nil) != math.IsNaN(want.Tau) || d.KendallTau != nil && *d.KendallTau != want.Tau {
			t.Errorf("request %s: diff %+v, want %+v", e.RequestID, *d, want)
		}
		if d.Class != stats.DiffIdentical {
			differ++
		}
	}
	if differ == 0 {
		t.Errorf("all %d shadow answers identical under rrf k 1: the test proves little", len(log.Shadows))
	}
}
