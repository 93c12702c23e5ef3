package httpbackend_test

import (
	"context"
	"net"
	"testing"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/backend/backendtest"
	"github.com/fusiontune/fusiontune/backend/engine"
	"github.com/fusiontune/fusiontune/backend/httpbackend"
)

// engineBody asks the embedded engine's /search for everything the
// contract suite checks: k, explain and per-request fusion settings.
const engineBody = `{"query": {{ .query }}, "k": {{ .k }}, "explain": {{ .explain }}, "fusion": {{ .fusion }}}`

// engineResponse maps the engine's /search response.
var engineResponse = httpbackend.Response{
	Hits: "hits", ID: "doc_id", ChunkID: "chunk_id", Score: "score", Routing: "routing",
	Candidates: map[string]string{"bm25": "candidates.bm25", "dense": "candidates.dense"},
}

// serveEngine starts the engine's HTTP server on the fixture corpus at
// 127.0.0.1:0 and returns its base URL; it stops when the test ends.
func serveEngine(t *testing.T) string {
	t.Helper()
	c, err := engine.LoadConfig("../engine/testdata/tiny.yaml")
	if err != nil {
		t.Fatal(err)
	}
	c.CacheDir = t.TempDir()
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
	return "http://" + ln.Addr().String()
}

// TestContract runs the backend contract suite against a Backend whose
// request template and response paths reach the real engine over HTTP.
func TestContract(t *testing.T) {
	base := serveEngine(t)
	backendtest.Run(t, func(t *testing.T) backend.Searcher {
		s, err := httpbackend.NewSearcher(httpbackend.SearchOptions{
			URL: base + "/search", Body: engineBody, HealthURL: base + "/healthz", Response: engineResponse,
		})
		if err != nil {
			t.Fatal(err)
		}
		b, err := httpbackend.New(httpbackend.Options{ConfigPath: t.TempDir() + "/unused.yaml", Restart: []string{"true"}, Search: s})
		if err != nil {
			t.Fatal(err)
		}
		if err := b.Restart(context.Background()); err != nil {
			t.Fatal(err)
		}
		return b
	})
}
