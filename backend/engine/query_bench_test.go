package engine_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/backend/engine"
	"github.com/fusiontune/fusiontune/backend/fusion"
)

// benchQueryConfig is make bench-query's engine: SciFact, whole
// documents, BM25 + lsa-256 fused by RRF (k 60).
func benchQueryConfig(tb testing.TB, dir string) engine.Config {
	c := scifactConfig(tb, dir)
	c.Retrievers = []string{engine.BM25, engine.Dense}
	c.Dense.Model = "lsa-256"
	c.Fusion.Method = fusion.RRF
	c.Fusion.K = 60
	return c
}

// reportCPU starts counting the process's CPU time (user + system, every
// thread); the function it returns reports it per op as cpu-ns/op, which
// a busy machine inflates much less than the wall time ns/op.
func reportCPU(b *testing.B) func() {
	cpu := func() time.Duration {
		var ru syscall.Rusage
		if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
			b.Fatal(err)
		}
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	t0 := cpu()
	return func() { b.ReportMetric(float64(cpu()-t0)/float64(b.N), "cpu-ns/op") }
}

// BenchmarkSciFactSearchPath is one client's hybrid search as make
// bench-query sends it (k 10, the 300 SciFact queries cycled) on the
// bench-query engine: "engine" calls Engine.Search, "handler" the
// server's POST /search handler in process (JSON decode, search, JSON
// encode) without a socket, "http" POST /search over loopback HTTP from
// a plain net/http client (as scripts/querybench sends it; the client's
// CPU time counts too). cpu-ns/op is the CPU time of a search (the
// dense scan may run on two cores at once).
func BenchmarkSciFactSearchPath(b *testing.B) {
	e := build(b, benchQueryConfig(b, b.TempDir()))
	queries := readQueries(b, filepath.Join(sharedData(b, "scifact"), "queries.jsonl"))
	b.Run("engine", func(b *testing.B) {
		b.ReportAllocs()
		defer reportCPU(b)()
		for i := 0; b.Loop(); i++ {
			if _, err := e.Search(context.Background(), backend.SearchRequest{Query: queries[i%len(queries)].Text, K: 10}); err != nil {
				b.Fatal(err)
			}
		}
	})
	bodies := make([]string, len(queries))
	for i, q := range queries {
		data, _ := json.Marshal(map[string]any{"query": q.Text, "k": 10})
		bodies[i] = string(data)
	}
	b.Run("handler", func(b *testing.B) {
		srv := engine.NewServer(e, engine.ServerOptions{})
		b.ReportAllocs()
		defer reportCPU(b)()
		for i := 0; b.Loop(); i++ {
			req, _ := http.NewRequest(http.MethodPost, "/search", strings.NewReader(bodies[i%len(bodies)]))
			w := newRecorder()
			srv.ServeHTTP(w, req)
			if w.status != http.StatusOK {
				b.Fatalf("status %d: %s", w.status, w.body.String())
			}
		}
	})
	b.Run("http", func(b *testing.B) {
		addr := serveAddr(b, e)
		hc := &http.Client{}
		b.ReportAllocs()
		defer reportCPU(b)()
		for i := 0; b.Loop(); i++ {
			resp, err := hc.Post("http://"+addr+"/search", "application/json", strings.NewReader(bodies[i%len(bodies)]))
			if err != nil {
				b.Fatal(err)
			}
			_, err = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if err != nil || resp.StatusCode != http.StatusOK {
				b.Fatalf("status %d, %v", resp.StatusCode, err)
			}
		}
	})
}
