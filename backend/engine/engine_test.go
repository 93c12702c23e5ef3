package engine_test

import (
	"bytes"
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/backend/backendtest"
	"github.com/fusiontune/fusiontune/backend/client"
	"github.com/fusiontune/fusiontune/backend/corpus"
	"github.com/fusiontune/fusiontune/backend/engine"
	"github.com/fusiontune/fusiontune/backend/fusion"
)

func TestContractInProcess(t *testing.T) {
	backendtest.Run(t, func(t *testing.T) backend.Searcher { return build(t, tinyConfig(t, nil)) })
}

func TestContractInProcessPassage(t *testing.T) {
	backendtest.RunWith(t, func(t *testing.T) backend.Searcher {
		return build(t, tinyConfig(t, func(c *engine.Config) {
			c.Chunk = corpus.ChunkConfig{Size: 12, Overlap: 4}
			c.Passage = true
		}))
	}, backendtest.Options{Passage: true})
}

// serve starts the engine's HTTP server on 127.0.0.1:0, as `tune serve`
// does, and returns a client for it; the server stops when the test ends.
func serve(t *testing.T, c engine.Config) *client.Client {
	t.Helper()
	e, err := engine.New(c, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- engine.NewServer(e, engine.ServerOptions{}).Serve(ctx, ln, nil) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
		e.Close()
	})
	cl, err := client.New("http://"+ln.Addr().String(), client.WithPollInterval(10*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	return cl
}

func TestContractHTTP(t *testing.T) {
	backendtest.Run(t, func(t *testing.T) backend.Searcher { return serve(t, tinyConfig(t, nil)) })
}

func TestSearchThresholds(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	tests := []struct {
		name        string
		edit        func(*engine.Config)
		query       string
		wantRouting string
		check       func(t *testing.T, r backend.SearchResponse)
	}{
		{"on topic", nil, "why does bread rise with yeast", engine.RoutingSearch, func(t *testing.T, r backend.SearchResponse) {
			if r.Hits[0].DocID != "bread-1" {
				t.Errorf("top hit %+v, want bread-1", r.Hits[0])
			}
		}},
		{"bm25 only off topic", func(c *engine.Config) { c.Retrievers = []string{engine.BM25} }, "quantum chromodynamics", engine.RoutingNoResults, nil},
		{"fused min_score", func(c *engine.Config) { c.MinScore = f(0.0325) }, "quantum chromodynamics lattice", engine.RoutingNoResults, nil},
		{"fused min_score keeps strong hits", func(c *engine.Config) { c.MinScore = f(0.0325) }, "sourdough starter", engine.RoutingSearch, func(t *testing.T, r backend.SearchResponse) {
			for _, h := range r.Hits {
				if h.Score < 0.0325 {
					t.Errorf("hit %+v under min_score", h)
				}
			}
		}},
		// A floor drops a retriever's candidates from the fusion; explain
		// still lists them as retrieved (the tuner's replay floors them).
		{"dense min_score", func(c *engine.Config) { c.Dense.MinScore = f(2) }, "sourdough starter", engine.RoutingSearch, func(t *testing.T, r backend.SearchResponse) {
			if len(r.Candidates["dense"]) == 0 || len(r.Candidates["bm25"]) == 0 {
				t.Errorf("dense candidates %d, bm25 %d: want both listed", len(r.Candidates["dense"]), len(r.Candidates["bm25"]))
			}
			bm25 := map[string]bool{}
			for _, c := range r.Candidates["bm25"] {
				bm25[c.DocID] = true
			}
			if len(r.Hits) != min(len(bm25), engine.DefaultHits) {
				t.Errorf("%d hits, want the %d bm25 documents", len(r.Hits), len(bm25))
			}
			for _, h := range r.Hits {
				if !bm25[h.DocID] {
					t.Errorf("hit %+v comes from the floored dense list", h)
				}
			}
		}},
		{"bm25 min_score routes off-topic", func(c *engine.Config) { c.Retrievers = []string{engine.BM25}; c.BM25.MinScore = f(1000) }, "sourdough starter", engine.RoutingNoResults, nil},
		{"bm25 and dense floors route off-topic", func(c *engine.Config) { c.BM25.MinScore, c.Dense.MinScore = f(1000), f(2) }, "sourdough starter", engine.RoutingNoResults, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := build(t, tinyConfig(t, tt.edit))
			r, err := e.Search(context.Background(), backend.SearchRequest{Query: tt.query, Explain: true})
			if err != nil {
				t.Fatal(err)
			}
			if r.Routing != tt.wantRouting {
				t.Fatalf("routing %q with %d hits, want %q", r.Routing, len(r.Hits), tt.wantRouting)
			}
			if tt.check != nil {
				tt.check(t, r)
			}
		})
	}
}

func TestSearchPassageOffsets(t *testing.T) {
	e := build(t, tinyConfig(t, func(c *engine.Config) {
		c.Chunk = corpus.ChunkConfig{Size: 15, Overlap: 5}
		c.Passage = true
		c.Retrievers = []string{engine.BM25}
	}))
	r, err := e.Search(context.Background(), backend.SearchRequest{Query: "carbon dioxide rise warm kitchen", K: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Hits) == 0 || r.Hits[0].ChunkID != "long-1#4" {
		t.Fatalf("hits %+v, want long-1#4 first", r.Hits)
	}
	var doc corpus.Document
	for _, d := range e.Documents() {
		if d.ID == "long-1" {
			doc = d
		}
	}
	for _, c := range e.Chunks() {
		if c.ID == "long-1#4" && (doc.Text[c.Start:c.End] != c.Text || !strings.Contains(c.Text, "carbon dioxide")) {
			t.Errorf("chunk %+v does not match its document's text", c)
		}
	}
}

func TestCacheReuse(t *testing.T) {
	for _, model := range []string{"hash-64", "lsa-16"} {
		t.Run(model, func(t *testing.T) {
			c := tinyConfig(t, func(c *engine.Config) { c.Dense.Model = model })
			cold := build(t, c)
			warm := build(t, c)
			if s := cold.Stats(); s.LexicalCached || s.DenseCached {
				t.Errorf("cold build used a cache: %+v", s)
			}
			if s := warm.Stats(); !s.LexicalCached || !s.DenseCached {
				t.Errorf("warm build did not use the cache: %+v", s)
			}
			for _, q := range backendtest.DefaultQueries {
				req := backend.SearchRequest{Query: q, Explain: true}
				a, _ := cold.Search(context.Background(), req)
				b, _ := warm.Search(context.Background(), req)
				if len(a.Hits) != len(b.Hits) || len(a.Hits) > 0 && a.Hits[0] != b.Hits[0] {
					t.Errorf("query %q: warm %+v, cold %+v", q, b.Hits, a.Hits)
				}
			}
			other := build(t, tinyConfig(t, func(x *engine.Config) { x.CacheDir = c.CacheDir; x.Dense.Model = model; x.Chunk.Size = 10 }))
			if s := other.Stats(); s.LexicalCached || s.DenseCached {
				t.Errorf("changed chunking reused the cache: %+v", s)
			}
		})
	}
}

// TestFittedVectorsEqualReembedded: the vectors a cold lsa build takes
// from fitting (embed.FitEmbedder) are the bytes the cached model embeds
// the chunks to when only the vector file is gone.
func TestFittedVectorsEqualReembedded(t *testing.T) {
	c := tinyConfig(t, func(c *engine.Config) { c.Dense.Model = "lsa-16" })
	file := build(t, c).Stats().DenseCacheFile
	fitted, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(file); err != nil {
		t.Fatal(err)
	}
	e := build(t, c)
	if s := e.Stats(); !s.ModelCached || s.DenseCached {
		t.Fatalf("second build: model cached %v (want true), vectors cached %v (want false)", s.ModelCached, s.DenseCached)
	}
	if again, err := os.ReadFile(file); err != nil || !bytes.Equal(fitted, again) {
		t.Errorf("re-embedded vectors differ from the fitted ones (err %v)", err)
	}
}

func TestNewErrors(t *testing.T) {
	tests := []struct {
		name string
		edit func(*engine.Config)
		want string
	}{
		{"unknown embedder", func(c *engine.Config) { c.Dense.Model = "bert-768" }, `dense.model "bert-768": embed: unknown embedder "bert-768"`},
		{"invalid", func(c *engine.Config) { c.Chunk.Size = -1 }, "chunk.size: must be >= 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := engine.New(tinyConfig(t, tt.edit), engine.Options{})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want %q", err, tt.want)
			}
		})
	}
}

func TestBuildErrors(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + ln.Addr().String()
	ln.Close()
	tests := []struct {
		name string
		edit func(*engine.Config)
		want string
	}{
		{"broken corpus", func(c *engine.Config) { c.Corpus.Path = "testdata/broken/corpus.jsonl" }, "testdata/broken/corpus.jsonl:2: expected a JSON object"},
		{"unreachable embedding server", func(c *engine.Config) {
			c.Dense = engine.DenseConfig{Model: "openai:tiny", BaseURL: closed, APIKeyEnv: "NO_SUCH_KEY_VAR"}
		}, "dense: embedding server " + closed + " (model openai:tiny) unusable"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, err := engine.New(tinyConfig(t, tt.edit), engine.Options{})
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			err = e.Build(ctx)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Build error %v, want %q", err, tt.want)
			}
			if rerr := e.Ready(ctx); rerr == nil || errors.Is(rerr, engine.ErrNotReady) {
				t.Errorf("Ready after a failed build: %v", rerr)
			}
		})
	}
}

func TestHTTPErrors(t *testing.T) {
	cl := serve(t, tinyConfig(t, nil))
	if err := cl.Ready(context.Background()); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, body string
		status     int
		want       string
	}{
		{"not json", `{"query": `, 400, `malformed JSON body`},
		{"unknown field", `{"query": "x", "size": 3}`, 400, `unknown field \"size\"`},
		{"wrong type", `{"query": 3}`, 400, `field \"query\": cannot use JSON number`},
		{"two values", `{"query": "x"} {}`, 400, `more than one value`},
		{"empty", ``, 400, `empty body`},
		{"empty query", `{"query": " "}`, 400, `query: must not be empty`},
		{"bad fusion", `{"query": "x", "fusion": {"method": "borda", "weights": {"sparse": 1}}}`, 400, `fusion.method: unknown method \"borda\"`},
		{"too big", `{"query": "` + strings.Repeat("a", 2<<20) + `"}`, 413, `request body over`},
		{"ok", `{"query": "bread", "k": 2}`, 200, `"routing":"search"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, body, err := cl.Raw(context.Background(), []byte(tt.body))
			if err != nil {
				t.Fatal(err)
			}
			if status != tt.status || !strings.Contains(string(body), tt.want) {
				t.Errorf("status %d body %s, want %d containing %s", status, body, tt.status, tt.want)
			}
			if status != 200 && !strings.HasPrefix(string(body), `{"error":`) {
				t.Errorf("error body %s is not {\"error\": ...}", body)
			}
		})
	}
	resp, err := http.Get(cl.BaseURL() + "/search")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("GET /search: %d, want 405", resp.StatusCode)
	}
	resp, err = http.Get(cl.BaseURL() + "/config")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/json" {
		t.Errorf("GET /config: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
}

func TestHealthWhileIndexing(t *testing.T) {
	e, err := engine.New(tinyConfig(t, nil), engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	srv := engine.NewServer(e, engine.ServerOptions{})
	rec := newRecorder()
	srv.ServeHTTP(rec, mustRequest(t, "GET", "/healthz"))
	if rec.status != 503 || !strings.Contains(rec.body.String(), `"indexing"`) {
		t.Errorf("before Build: %d %s, want 503 indexing", rec.status, rec.body.String())
	}
	if err := e.Build(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	rec = newRecorder()
	srv.ServeHTTP(rec, mustRequest(t, "GET", "/healthz"))
	if rec.status != 200 {
		t.Errorf("after Build: %d %s, want 200", rec.status, rec.body.String())
	}
}

// TestSearchVariants: a request with fusion variants, through the real
// HTTP server, answers each variant with exactly the hits and routing of
// a separate request with that override; a variant of another depth or
// an invalid one is refused as a bad request.
func TestSearchVariants(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	cl := serve(t, tinyConfig(t, func(c *engine.Config) { c.MinScore = f(0.02) }))
	ctx := context.Background()
	if err := cl.Ready(ctx); err != nil {
		t.Fatal(err)
	}
	base := fusion.Params{Method: fusion.RRF, K: 60, Depth: 50}
	variants := []fusion.Params{
		{Method: fusion.RRF, K: 1, Depth: 50, Weights: map[string]float64{"bm25": 0.2, "dense": 0.8}},
		{Method: fusion.Linear, Normalization: fusion.ZScore, Depth: 50},
		{Method: fusion.CombMNZ, Depth: 50, Weights: map[string]float64{"bm25": 1, "dense": 0}},
		{Method: fusion.RRF, K: 1000, Depth: 50}, // every fused score below min_score: no results
	}
	for _, q := range []string{"vector search engines", "bm25 ranking function", "zzz unknown words"} {
		resp, err := cl.Search(ctx, backend.SearchRequest{Query: q, K: 10, Fusion: &base, Variants: variants})
		if err != nil {
			t.Fatal(err)
		}
		if len(resp.Variants) != len(variants) {
			t.Fatalf("%q: %d variants answered, want %d", q, len(resp.Variants), len(variants))
		}
		single, err := cl.Search(ctx, backend.SearchRequest{Query: q, K: 10, Fusion: &base})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(resp.Hits, single.Hits) || resp.Routing != single.Routing {
			t.Errorf("%q: the request's own hits changed with variants", q)
		}
		for i := range variants {
			one, err := cl.Search(ctx, backend.SearchRequest{Query: q, K: 10, Fusion: &variants[i]})
			if err != nil {
				t.Fatal(err)
			}
			got := resp.Variants[i]
			if !reflect.DeepEqual(got.Hits, one.Hits) || got.Routing != one.Routing {
				t.Errorf("%q variant %d: %d hits %s, a separate request %d hits %s", q, i, len(got.Hits), got.Routing, len(one.Hits), one.Routing)
			}
		}
	}
	for _, tc := range []struct {
		v    fusion.Params
		want string
	}{
		{fusion.Params{Method: fusion.RRF, Depth: 20}, "variants[0].depth: must equal the request's depth 50"},
		{fusion.Params{Method: "borda", Depth: 50}, "variants[0]"},
	} {
		_, err := cl.Search(ctx, backend.SearchRequest{Query: "bm25", Fusion: &base, Variants: []fusion.Params{tc.v}})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("variant %+v: got %v, want an error with %q", tc.v, err, tc.want)
		}
	}
}

// TestDenseMaxRetries: dense.max_retries bounds how often a failing
// embedding server is asked before the build gives up (0: once), and is
// checked against its range.
func TestDenseMaxRetries(t *testing.T) {
	for _, tc := range []struct {
		retries *int
		want    int64 // requests the server sees
	}{
		{intp(0), 1},
		{intp(1), 2},
	} {
		var calls atomic.Int64
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			calls.Add(1)
			http.Error(w, "overloaded", http.StatusServiceUnavailable)
		}))
		e, err := engine.New(tinyConfig(t, func(c *engine.Config) {
			c.Dense = engine.DenseConfig{Model: "openai:tiny", BaseURL: srv.URL, MaxRetries: tc.retries}
		}), engine.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if err := e.Build(context.Background()); err == nil {
			t.Fatal("Build succeeded against a failing embedding server")
		}
		srv.Close()
		if got := calls.Load(); got != tc.want {
			t.Errorf("max_retries %d: %d requests, want %d", *tc.retries, got, tc.want)
		}
	}
	c := engine.DefaultConfig()
	c.Corpus.Path = "x.jsonl"
	c.Dense.MaxRetries = intp(11)
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "dense.max_retries: must be in [0, 10] (got 11)") {
		t.Errorf("max_retries 11: %v", err)
	}
}

func intp(v int) *int { return &v }
