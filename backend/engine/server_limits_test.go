package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// limitsServer serves the fixture engine with opts on 127.0.0.1 through
// Server.Serve (the code path of tune serve) and returns its base URL.
func limitsServer(t *testing.T, opts ServerOptions) (*Server, string) {
	t.Helper()
	s, url, stop := startServer(t, opts)
	t.Cleanup(func() { stop() })
	return s, url
}

// startServer is limitsServer with the stop in the caller's hands: stop
// cancels Serve's context and returns Serve's error once it returned.
func startServer(t *testing.T, opts ServerOptions) (*Server, string, func() error) {
	t.Helper()
	cfg, err := LoadConfig("testdata/tiny.yaml")
	if err != nil {
		t.Fatal(err)
	}
	cfg.CacheDir = t.TempDir()
	e, err := New(cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := NewServer(e, opts)
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan struct{})
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, ln, func() { close(ready) }) }()
	var once sync.Once
	var serveErr error
	stop := func() error {
		once.Do(func() { cancel(); serveErr = <-done })
		return serveErr
	}
	select {
	case <-ready:
	case <-time.After(60 * time.Second):
		stop()
		t.Fatal("engine not ready")
	}
	return s, "http://" + ln.Addr().String(), stop
}

func post(t *testing.T, url, body string) (*http.Response, string) {
	t.Helper()
	resp, err := http.Post(url+"/search", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var m map[string]any
	json.NewDecoder(resp.Body).Decode(&m)
	msg, _ := m["error"].(string)
	return resp, msg
}

// TestServerBodyLimit: a body over MaxBodyBytes gets 413 before any JSON is
// decoded; one just under the limit is read (and judged on its content).
func TestServerBodyLimit(t *testing.T) {
	_, url := limitsServer(t, ServerOptions{MaxBodyBytes: 1024})
	big := `{"query": "` + strings.Repeat("a", 2000) + `"}`
	resp, msg := post(t, url, big)
	if resp.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(msg, "over 1024 bytes") {
		t.Errorf("oversized body: %d %q, want 413", resp.StatusCode, msg)
	}
	resp, _ = post(t, url, `{"query": "`+strings.Repeat("a", 900)+`"}`)
	if resp.StatusCode != http.StatusOK {
		t.Errorf("body under the limit: %d", resp.StatusCode)
	}
}

// TestServerConcurrencyLimit: with every search slot taken, requests wait
// in a queue of MaxQueued; one more is refused at once with 503 and
// Retry-After; when a slot frees, the waiting request completes.
func TestServerConcurrencyLimit(t *testing.T) {
	s, url := limitsServer(t, ServerOptions{MaxInFlight: 2, MaxQueued: 1})
	// Take both slots, as two long searches would.
	s.sem <- struct{}{}
	s.sem <- struct{}{}
	waiting := searchAsync(url)
	deadline := time.Now().Add(10 * time.Second)
	for s.queued.Load() != 1 {
		if time.Now().After(deadline) {
			t.Fatal("the request never queued")
		}
		time.Sleep(5 * time.Millisecond)
	}
	start := time.Now()
	resp, msg := post(t, url, `{"query": "boiler"}`)
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" || !strings.Contains(msg, "busy") {
		t.Errorf("over the queue: %d %q (Retry-After %q), want 503 busy", resp.StatusCode, msg, resp.Header.Get("Retry-After"))
	}
	if time.Since(start) > 5*time.Second {
		t.Errorf("the refused request waited %s", time.Since(start))
	}
	select {
	case code := <-waiting:
		t.Fatalf("the queued request finished (%d) while no slot was free", code)
	default:
	}
	<-s.sem
	if code := <-waiting; code != http.StatusOK {
		t.Errorf("queued request: %d, want 200 once a slot freed", code)
	}
	<-s.sem
}

// TestServerListensOnLoopbackByDefault: the default config binds
// 127.0.0.1; another interface needs an explicit listen.
func TestServerListensOnLoopbackByDefault(t *testing.T) {
	host, _, err := net.SplitHostPort(DefaultConfig().Listen)
	if err != nil || host != "127.0.0.1" {
		t.Errorf("default listen %q, want 127.0.0.1:PORT", DefaultConfig().Listen)
	}
	c, err := ParseConfig([]byte("corpus:\n  path: x.jsonl\n"), "engine.yaml", "/")
	if err != nil {
		t.Fatal(err)
	}
	if host, _, _ := net.SplitHostPort(c.Listen); host != "127.0.0.1" {
		t.Errorf("a config without listen binds %q", c.Listen)
	}
}

// searchAsync posts a search in the background; the channel gets its
// status code (-1 when the request failed).
func searchAsync(url string) <-chan int {
	code := make(chan int, 1)
	go func() {
		resp, err := http.Post(url+"/search", "application/json", strings.NewReader(`{"query": "boiler"}`))
		if err != nil {
			code <- -1
			return
		}
		resp.Body.Close()
		code <- resp.StatusCode
	}()
	return code
}

// TestServerQueryLimits: a query over MaxQueryTerms terms or MaxQueryBytes
// bytes is refused with 400 naming the limit, before any retrieval; one at
// the limit is answered; fusion weights or a k that make a fused score
// overflow are refused with 400, not 500.
func TestServerQueryLimits(t *testing.T) {
	_, url := limitsServer(t, ServerOptions{MaxQueryTerms: 8})
	terms := func(n int, sep string) string {
		w := make([]string, n)
		for i := range w {
			w[i] = "telescope"
		}
		return strings.Join(w, sep)
	}
	for _, tc := range []struct {
		name, body string
		status     int
		msg        string
	}{
		{"at the term limit", `{"query": "` + terms(8, " ") + `"}`, 200, ""},
		{"over the term limit", `{"query": "` + terms(9, " ") + `"}`, 400, "query: at most 8 terms (got 9; "},
		{"terms without spaces", `{"query": "` + terms(20, ",") + `"}`, 400, "query: at most 8 terms (got 20; "},
		{"ideographs count one each", `{"query": "` + strings.Repeat("图", 9) + `"}`, 400, "query: at most 8 terms (got 9; "},
		{"over the byte limit", `{"query": "` + strings.Repeat("a", MaxQueryBytes+1) + `"}`, 400, fmt.Sprintf("query: at most %d bytes", MaxQueryBytes)},
		{"weights overflow", `{"query": "telescope light", "fusion": {"method": "linear", "normalization": "none", "weights": {"bm25": 1e308, "dense": 1e308}}}`, 400, "fusion.weights.bm25: must be >= 0 and at most 1e+06 (got 1e+308)"},
		{"variant weights overflow", `{"query": "telescope light", "variants": [{"method": "linear", "normalization": "none", "weights": {"bm25": 1e308, "dense": 1e308}}]}`, 400, "variants[0]: invalid search request: fusion.weights.bm25: must be >= 0 and at most 1e+06"},
		{"weight above the float range", `{"query": "telescope", "fusion": {"method": "linear", "weights": {"bm25": 1e309}}}`, 400, "malformed JSON body"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, msg := post(t, url, tc.body)
			if resp.StatusCode != tc.status || !strings.Contains(msg, tc.msg) {
				t.Errorf("%d %q, want %d with %q", resp.StatusCode, msg, tc.status, tc.msg)
			}
		})
	}
}

// TestServerOptionsRange: MaxQueryTerms outside [1, MaxQueryTermsLimit]
// is refused by CheckServerOptions, which tune serve calls on its flags.
func TestServerOptionsRange(t *testing.T) {
	for _, tc := range []struct {
		n  int
		ok bool
	}{{0, true}, {1, true}, {DefaultMaxQueryTerms, true}, {MaxQueryTermsLimit, true}, {-1, false}, {MaxQueryTermsLimit + 1, false}} {
		err := CheckServerOptions(ServerOptions{MaxQueryTerms: tc.n})
		if (err == nil) != tc.ok {
			t.Errorf("MaxQueryTerms %d: %v", tc.n, err)
		}
	}
}
