package engine_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/backend/corpus"
	"github.com/fusiontune/fusiontune/backend/engine"
)

// replicatedCorpus writes SciFact's corpus replicated to n documents, the
// ids of copy r suffixed "-r<r>" (as scripts/bench-scale.sh does), and
// returns its path.
func replicatedCorpus(b *testing.B, n int) string {
	b.Helper()
	src, err := os.ReadFile(filepath.Join(sharedData(b, "scifact"), "corpus.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(string(src), "\n"), "\n")
	path := filepath.Join(b.TempDir(), "corpus.jsonl")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriter(f)
	const prefix = `{"_id": "`
	for i := 0; i < n; i++ {
		l := lines[i%len(lines)]
		end := len(prefix) + strings.IndexByte(l[len(prefix):], '"')
		fmt.Fprintf(w, "%s-r%d%s\n", l[:end], i/len(lines), l[end:])
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	f.Close()
	return path
}

// scaleConfig is the engine of BenchmarkScaleBuild and BenchmarkScaleWarm:
// bm25 + lsa-128 over SciFact replicated to FUSIONTUNE_SCALE_DOCS
// documents (default 20,000), whole documents.
func scaleConfig(b *testing.B) engine.Config {
	n := 20000
	if v, err := strconv.Atoi(os.Getenv("FUSIONTUNE_SCALE_DOCS")); err == nil && v > 0 {
		n = v
	}
	c := engine.DefaultConfig()
	c.Corpus = corpus.Config{Path: replicatedCorpus(b, n), Format: corpus.FormatBEIR}
	c.Retrievers = []string{engine.BM25, engine.Dense}
	c.Dense.Model = "lsa-128"
	return c
}

// BenchmarkScaleWarm is a warm start of BenchmarkScaleBuild's engine: a
// build on the cache a cold build left (corpus read and hashed, index,
// model and vectors loaded).
func BenchmarkScaleWarm(b *testing.B) {
	c := scaleConfig(b)
	c.CacheDir = b.TempDir()
	build := func() engine.BuildStats {
		e, err := engine.New(c, engine.Options{})
		if err != nil {
			b.Fatal(err)
		}
		if err := e.Build(context.Background()); err != nil {
			b.Fatal(err)
		}
		e.Close()
		return e.Stats()
	}
	build()
	for b.Loop() {
		if st := build(); !st.LexicalCached || !st.DenseCached {
			b.Fatalf("warm build rebuilt: %+v", st)
		}
	}
}

// BenchmarkScaleBuild is a cold build (bm25 + lsa-128, whole documents) of
// SciFact replicated to FUSIONTUNE_SCALE_DOCS documents (default 20,000);
// it reports the build's wall time and the heap's peak in use as Go
// counts it (the process's RSS is make bench-scale's).
func BenchmarkScaleBuild(b *testing.B) {
	c := scaleConfig(b)
	for b.Loop() {
		c.CacheDir = b.TempDir()
		e, err := engine.New(c, engine.Options{})
		if err != nil {
			b.Fatal(err)
		}
		if err := e.Build(context.Background()); err != nil {
			b.Fatal(err)
		}
		st := e.Stats()
		b.ReportMetric(st.Lexical.Seconds(), "bm25-s")
		b.ReportMetric(st.Dense.Seconds(), "dense-s")
		e.Close()
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(ms.HeapSys)/(1<<20), "heapsys-MiB")
}
