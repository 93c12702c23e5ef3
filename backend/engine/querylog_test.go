package engine

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/internal/querylog"
)

// TestServerQueryLog: with the query log on, every search over real HTTP
// is answered with a request id and logged with its hits, each hit's
// per-retriever ranks, its latency and the config's hash, never a header;
// the response keeps its shape (no candidates unless explain was asked).
// POST /feedback records a click (its position taken from the results)
// and a re-search, and refuses an unknown request id, a document the
// search did not return, a wrong position and a malformed body.
func TestServerQueryLog(t *testing.T) {
	path := filepath.Join(t.TempDir(), "queries.jsonl")
	w, err := querylog.Open(path, querylog.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s, url := limitsServer(t, ServerOptions{QueryLog: w})
	search := func(body string) (string, map[string]any) {
		req, _ := http.NewRequest(http.MethodPost, url+"/search", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer sk-secret-never-logged")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var m map[string]any
		json.NewDecoder(resp.Body).Decode(&m)
		if resp.StatusCode != 200 {
			t.Fatalf("search: %d %v", resp.StatusCode, m)
		}
		return resp.Header.Get(RequestIDHeader), m
	}
	id1, m1 := search(`{"query": "telescope mirror", "k": 5}`)
	if !strings.HasPrefix(id1, "r-") || len(id1) != 18 {
		t.Fatalf("request id %q", id1)
	}
	if _, ok := m1["candidates"]; ok {
		t.Error("candidates returned without explain")
	}
	id2, m2 := search(`{"query": "moon phases", "k": 3, "explain": true}`)
	if _, ok := m2["candidates"]; !ok {
		t.Error("explain asked, no candidates")
	}
	hits := m1["hits"].([]any)
	second := hits[1].(map[string]any)["doc_id"].(string)
	feedback := func(body string) (int, string) {
		resp, err := http.Post(url+"/feedback", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	for _, tc := range []struct {
		body   string
		status int
		want   string
	}{
		{`{"request_id": "` + id1 + `", "action": "click", "doc_id": "` + second + `"}`, 204, ""},
		{`{"request_id": "` + id2 + `", "action": "research"}`, 204, ""},
		{`{"request_id": "r-0000000000000000", "action": "click", "doc_id": "astro-1"}`, 400, `was not answered by this server`},
		{`{"request_id": "` + id1 + `", "action": "click", "doc_id": "nope"}`, 400, `doc_id: \"nope\" was not among the results`},
		{`{"request_id": "` + id1 + `", "action": "click", "doc_id": "` + second + `", "position": 1}`, 400, `position: 1, but`},
		{`{"request_id": "` + id1 + `", "action": "like"}`, 400, `action: want \"click\" or \"research\"`},
		{`{"request_id": "` + id1 + `", "action": "research", "extra": 1}`, 400, `unknown field`},
	} {
		status, body := feedback(tc.body)
		if status != tc.status || !strings.Contains(body, tc.want) {
			t.Errorf("%s: %d %s, want %d %q", tc.body, status, body, tc.status, tc.want)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	if strings.Contains(string(data), "sk-secret") || strings.Contains(string(data), "Bearer") {
		t.Error("a request header reached the log")
	}
	log, err := querylog.Read([]string{path}, querylog.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(log.Searches) != 2 || len(log.Feedback) != 2 {
		t.Fatalf("log: %d searches, %d feedback", len(log.Searches), len(log.Feedback))
	}
	s1 := log.Searches[0]
	if s1.RequestID != id1 || s1.Query != "telescope mirror" || s1.K != 5 || len(s1.Results) != len(hits) || s1.LatencyMS <= 0 || s1.Config != ConfigHash(s.e.Config()) {
		t.Errorf("search event %+v", s1)
	}
	ranked := 0
	for _, r := range s1.Results {
		ranked += len(r.Ranks)
	}
	if ranked < len(s1.Results) {
		t.Errorf("ranks missing: %+v", s1.Results)
	}
	if c := log.Feedback[0]; c.Position != 2 || c.DocID != second {
		t.Errorf("click %+v", c)
	}
}

// TestServerFeedbackWithoutLog: /feedback needs the query log.
func TestServerFeedbackWithoutLog(t *testing.T) {
	_, url := limitsServer(t, ServerOptions{})
	resp, err := http.Post(url+"/feedback", "application/json", strings.NewReader(`{"request_id":"r-1","action":"research"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 404 || resp.Header.Get(RequestIDHeader) != "" {
		t.Errorf("status %d", resp.StatusCode)
	}
}

// TestLogConfig: the log block is checked with its ranges, and its path
// resolves against the config file's directory.
func TestLogConfig(t *testing.T) {
	dir := t.TempDir()
	cfg, err := ParseConfig([]byte("corpus: {path: c.jsonl}\nlog: {path: logs/q.jsonl, sample: 0.5}\n"), filepath.Join(dir, "e.yaml"), dir)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Log.Path != filepath.Join(dir, "logs/q.jsonl") || cfg.Log.Sample != 0.5 {
		t.Errorf("log %+v", cfg.Log)
	}
	_, err = ParseConfig([]byte("corpus: {path: c.jsonl}\nlog: {sample: 2, keep: 0, rotate_bytes: 5}\n"), filepath.Join(dir, "e.yaml"), dir)
	for _, want := range []string{"log.path: required", "log.sample: must be a number in (0, 1] (got 2)", "log.rotate_bytes: must be in [1024,"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("err = %v, want %q", err, want)
		}
	}
}
