package postgres_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/backend/postgres"
	"github.com/fusiontune/fusiontune/internal/pgtest"
)

// database returns the URL of a fresh database with pgvector in a
// throwaway cluster (pgtest.VectorDatabase).
func database(t *testing.T) string { return pgtest.VectorDatabase(t) }

// topics are the planted topics of the synthetic corpus.
var topics = [][]string{
	{"telescope", "galaxy", "orbit", "planet", "comet", "nebula", "star", "lens", "mirror", "astronomer"},
	{"bread", "yeast", "flour", "oven", "dough", "butter", "sugar", "bake", "crust", "knead"},
	{"protein", "cell", "gene", "enzyme", "membrane", "virus", "tissue", "receptor", "mutation", "dna"},
	{"river", "mountain", "forest", "glacier", "valley", "rain", "soil", "lake", "canyon", "delta"},
	{"compiler", "memory", "thread", "kernel", "cache", "pointer", "stack", "heap", "process", "socket"},
}

// syntheticCorpus writes a BEIR corpus of n documents drawn from the
// topics (with some words of other topics, and ties in lexical scores),
// and returns its path and nq queries.
func syntheticCorpus(t testing.TB, n, nq int) (string, []string) {
	t.Helper()
	r := rand.New(rand.NewPCG(7, 11))
	var b strings.Builder
	for i := range n {
		tp := topics[i%len(topics)]
		words := make([]string, 8+r.IntN(20))
		for j := range words {
			if r.IntN(6) == 0 {
				o := topics[r.IntN(len(topics))]
				words[j] = o[r.IntN(len(o))]
			} else {
				words[j] = tp[r.IntN(len(tp))]
			}
		}
		line, _ := json.Marshal(map[string]string{"_id": fmt.Sprintf("d%03d", i), "title": tp[r.IntN(len(tp))], "text": strings.Join(words, " ")})
		b.Write(line)
		b.WriteByte('\n')
	}
	path := filepath.Join(t.TempDir(), "corpus.jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	qs := make([]string, nq)
	for i := range qs {
		tp := topics[r.IntN(len(topics))]
		qs[i] = tp[r.IntN(len(tp))] + " " + tp[r.IntN(len(tp))] + " " + topics[r.IntN(len(topics))][r.IntN(10)]
	}
	return path, qs
}

// factory is the kind on url over corpus with lsa-16 vectors.
func factory(t testing.TB, url, corpus string) *postgres.Factory {
	t.Helper()
	base := postgres.DefaultConfig(corpus)
	base.Dense.Model = "lsa-16"
	f, err := postgres.New(postgres.Options{URL: url, Base: base})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// opened opens f's backend on its base config, its table loaded; it is
// closed when t ends.
func opened(t *testing.T, f *postgres.Factory) backend.Backend {
	t.Helper()
	ctx := context.Background()
	b, err := f.Open(t.TempDir(), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	if err := b.Apply(ctx, map[string]any{}); err != nil {
		t.Fatal(err)
	}
	if err := b.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	return b
}
