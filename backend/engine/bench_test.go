package engine_test

import (
	"context"
	"net"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/backend/client"
	"github.com/fusiontune/fusiontune/backend/engine"
	"github.com/fusiontune/fusiontune/backend/render"
	"github.com/fusiontune/fusiontune/experiments"
)

// hybridConfig is SciFact, whole documents, BM25 + hash-384 fused by RRF.
func hybridConfig(b *testing.B, dir string) engine.Config {
	c := scifactConfig(b, dir)
	c.Retrievers = []string{engine.BM25, engine.Dense}
	c.Dense.Model = "hash-384"
	return c
}

// BenchmarkSciFactIndex builds the BM25 index of SciFact from scratch
// (5,183 documents, title + text); -benchmem gives its allocations.
func BenchmarkSciFactIndex(b *testing.B) {
	c := scifactConfig(b, "")
	for b.Loop() {
		c.CacheDir = b.TempDir()
		e, err := engine.New(c, engine.Options{})
		if err != nil {
			b.Fatal(err)
		}
		if err := e.Build(context.Background()); err != nil {
			b.Fatal(err)
		}
		e.Close()
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(ms.HeapInuse)/(1<<20), "heap-MiB")
}

// BenchmarkSciFactColdWarm reports a cold start (index and embed SciFact
// with hash-384 and lsa-256) and a warm restart on the same cache.
func BenchmarkSciFactColdWarm(b *testing.B) {
	for _, model := range []string{"hash-384", "lsa-256"} {
		b.Run(model, func(b *testing.B) {
			var cold, warm time.Duration
			n := 0
			for b.Loop() {
				c := hybridConfig(b, b.TempDir())
				c.Dense.Model = model
				t0 := time.Now()
				e1 := build(b, c)
				cold += time.Since(t0)
				t1 := time.Now()
				e2 := build(b, c)
				warm += time.Since(t1)
				if !e2.Stats().LexicalCached || !e2.Stats().DenseCached {
					b.Fatalf("warm start rebuilt: %+v", e2.Stats())
				}
				e1.Close()
				e2.Close()
				n++
			}
			b.ReportMetric(float64(cold.Milliseconds())/float64(n), "cold-ms")
			b.ReportMetric(float64(warm.Milliseconds())/float64(n), "warm-ms")
			b.ReportMetric(100*float64(warm)/float64(cold), "warm-%-of-cold")
		})
	}
}

// latencies reports the 50th and 99th percentiles of ds.
func latencies(b *testing.B, ds []time.Duration) {
	slices.Sort(ds)
	pct := func(p float64) float64 {
		return float64(ds[min(len(ds)-1, int(p*float64(len(ds))))].Microseconds()) / 1000
	}
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
}

// BenchmarkSciFactHybridQuery measures one client's hybrid searches (BM25
// + hash-384, RRF, depth 100, k 10) over the 300 SciFact queries, in
// process and over HTTP on 127.0.0.1.
func BenchmarkSciFactHybridQuery(b *testing.B) {
	c := hybridConfig(b, b.TempDir())
	e := build(b, c)
	queries := readQueries(b, filepath.Join(sharedData(b, "scifact"), "queries.jsonl"))
	run := func(b *testing.B, s backend.Searcher) {
		ds := make([]time.Duration, 0, 1024)
		for i := 0; b.Loop(); i++ {
			t0 := time.Now()
			if _, err := s.Search(context.Background(), backend.SearchRequest{Query: queries[i%len(queries)].Text, K: 10}); err != nil {
				b.Fatal(err)
			}
			ds = append(ds, time.Since(t0))
		}
		latencies(b, ds)
	}
	b.Run("inprocess", func(b *testing.B) { run(b, e) })
	b.Run("http", func(b *testing.B) { run(b, serveBench(b, e)) })
}

// serveBench serves a built engine on 127.0.0.1:0 until the benchmark ends.
func serveBench(b *testing.B, e *engine.Engine) *client.Client {
	cl, err := client.New(serveAddr(b, e))
	if err != nil {
		b.Fatal(err)
	}
	if err := cl.Ready(context.Background()); err != nil {
		b.Fatal(err)
	}
	return cl
}

// serveAddr serves a built engine on 127.0.0.1:0 until the benchmark ends
// and returns its address.
func serveAddr(b *testing.B, e *engine.Engine) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		engine.NewServer(e, engine.ServerOptions{}).Serve(ctx, ln, nil) // Build is a no-op on a built engine
	}()
	b.Cleanup(func() { cancel(); <-done })
	return ln.Addr().String()
}

// BenchmarkSciFactHTTPThroughput runs hybrid searches from 4 concurrent
// clients over HTTP and reports searches per second.
func BenchmarkSciFactHTTPThroughput(b *testing.B) {
	e := build(b, hybridConfig(b, b.TempDir()))
	queries := readQueries(b, filepath.Join(sharedData(b, "scifact"), "queries.jsonl"))
	cl := serveBench(b, e)
	const clients = 4
	b.ResetTimer()
	start := time.Now()
	var wg sync.WaitGroup
	next := make(chan int)
	for range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if _, err := cl.Search(context.Background(), backend.SearchRequest{Query: queries[i%len(queries)].Text, K: 10}); err != nil {
					b.Error(err)
				}
			}
		}()
	}
	for i := 0; i < b.N; i++ {
		next <- i
	}
	close(next)
	wg.Wait()
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "searches/s")
}

// BenchmarkTinySearch is the hybrid search hot path on the fixture corpus
// (runs without shared data).
func BenchmarkTinySearch(b *testing.B) {
	e := build(b, tinyConfig(b, nil))
	for i := 0; b.Loop(); i++ {
		q := backendtestQueries[i%len(backendtestQueries)]
		if _, err := e.Search(context.Background(), backend.SearchRequest{Query: q, K: 10}); err != nil {
			b.Fatal(err)
		}
	}
}

var backendtestQueries = []string{"telescope mirror", "bread yeast", "garbage collector", "mulch soil"}

// BenchmarkTrialSettings resolves one trial's engine config and fusion
// settings per op, cycling through the shipped trials valid on the demo
// base: by rendering the YAML and parsing it back, parsing
// already rendered bytes (a hit of cmd/tune's render memo), and with the
// typed overlay (WithParams + FusionSettings).
func BenchmarkTrialSettings(b *testing.B) {
	base := bases(b)["demo"]
	render := render.YAMLOverlay(base, experiments.CustomPrefix)
	parsed, err := renderParse(base, nil)
	if err != nil {
		b.Fatal(err)
	}
	trials, _, _ := shippedTrials(b)
	var params []map[string]any
	var rendered [][]byte
	for _, tr := range trials {
		if _, err := parsed.WithParams(tr.Params); err != nil {
			continue // round1's single-retriever trials
		}
		data, err := render(tr.Params)
		if err != nil {
			b.Fatal(err)
		}
		params, rendered = append(params, tr.Params), append(rendered, data)
	}
	for _, bb := range []struct {
		name    string
		resolve func(i int) (engine.Config, error)
	}{
		{"render+parse", func(i int) (engine.Config, error) {
			data, err := render(params[i])
			if err != nil {
				return engine.Config{}, err
			}
			return engine.ParseConfig(data, "trial config", "/")
		}},
		{"parse", func(i int) (engine.Config, error) { return engine.ParseConfig(rendered[i], "trial config", "/") }},
		{"WithParams", func(i int) (engine.Config, error) { return parsed.WithParams(params[i]) }},
	} {
		b.Run(bb.name, func(b *testing.B) {
			i := 0
			for b.Loop() {
				cfg, err := bb.resolve(i % len(params))
				if err != nil {
					b.Fatal(err)
				}
				_ = cfg.FusionSettings()
				i++
			}
		})
	}
}
