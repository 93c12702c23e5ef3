package engine_test

import (
	"context"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/backend/corpus"
	"github.com/fusiontune/fusiontune/backend/embed"
	"github.com/fusiontune/fusiontune/backend/engine"
)

// TestIndexTextsQueryVectorsMatchEngine: the texts IndexTexts gives and
// an embedder from embed.ForQueries fitted on them reproduce the engine's
// own dense scores (the cosine of query and chunk) for every chunk the
// engine returns, for a corpus-fitted embedder and chunking.
func TestIndexTextsQueryVectorsMatchEngine(t *testing.T) {
	for _, tc := range []struct {
		name  string
		model string
		chunk corpus.ChunkConfig
	}{
		{"lsa whole documents", "lsa-8", corpus.ChunkConfig{}},
		{"lsa chunks", "lsa-8", corpus.ChunkConfig{Size: 6, Overlap: 2}},
		{"hash chunks", "hash-64", corpus.ChunkConfig{Size: 5, Overlap: 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			c := tinyConfig(t, func(c *engine.Config) {
				c.Retrievers = []string{engine.Dense}
				c.Dense.Model = tc.model
				c.Chunk = tc.chunk
				c.Passage = true
			})
			e := build(t, c)
			loaded, err := corpus.Load(c.Corpus)
			if err != nil {
				t.Fatal(err)
			}
			chunks, texts, err := corpus.IndexTexts(loaded.Docs, tc.chunk)
			if err != nil {
				t.Fatal(err)
			}
			if len(chunks) != len(e.Chunks()) {
				t.Fatalf("%d chunks, the engine has %d", len(chunks), len(e.Chunks()))
			}
			emb, err := embed.ForQueries(ctx, tc.model, embed.Options{}, texts)
			if err != nil {
				t.Fatal(err)
			}
			ids := make([]string, len(chunks))
			byID := map[string]int{}
			for i, ch := range chunks {
				ids[i], byID[ch.ID] = ch.ID, i
			}
			docs, err := emb.EmbedDocuments(ctx, ids, texts)
			if err != nil {
				t.Fatal(err)
			}
			qs := readQueries(t, filepath.Join("testdata", "tiny", "queries.jsonl"))
			checked := 0
			for _, q := range qs {
				resp, err := e.Search(ctx, backend.SearchRequest{Query: q.Text, K: 10, Explain: true})
				if err != nil {
					t.Fatal(err)
				}
				qv, err := emb.EmbedQuery(ctx, q.Text)
				if err != nil {
					t.Fatal(err)
				}
				for _, cand := range resp.Candidates[engine.Dense] {
					i, ok := byID[cand.ID]
					if !ok {
						t.Fatalf("query %s: engine chunk %q not among IndexTexts' chunks", q.ID, cand.ID)
					}
					var dot float64
					for j := range qv {
						dot += float64(qv[j]) * float64(docs[i][j])
					}
					if math.Abs(dot-cand.Score) > 1e-5 {
						t.Errorf("query %s chunk %s: cosine %.9f, engine %.9f", q.ID, cand.ID, dot, cand.Score)
					}
					checked++
				}
			}
			if checked == 0 {
				t.Fatal("the engine returned no dense candidates")
			}
		})
	}
}

// TestQueryVectors: the lazily fitted query embedder gives the vectors of
// embed.ForQueries over IndexTexts; a bad model fails at once, a missing
// corpus on the first call (and every later one).
func TestQueryVectors(t *testing.T) {
	ctx := context.Background()
	corpusCfg := corpus.Config{Path: filepath.Join("testdata", "tiny", "corpus.jsonl")}
	chunk := corpus.ChunkConfig{Size: 6, Overlap: 2}
	f, err := engine.QueryVectors(corpusCfg, chunk, "lsa-8", embed.Options{})
	if err != nil {
		t.Fatal(err)
	}
	loaded, err := corpus.Load(corpusCfg)
	if err != nil {
		t.Fatal(err)
	}
	_, texts, err := corpus.IndexTexts(loaded.Docs, chunk)
	if err != nil {
		t.Fatal(err)
	}
	emb, err := embed.ForQueries(ctx, "lsa-8", embed.Options{}, texts)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"telescope mirror", "bread yeast"} {
		got, err := f(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := emb.EmbedQuery(ctx, q)
		if len(got) != 8 || !slices.Equal(got, want) {
			t.Errorf("%q: %v, want %v", q, got, want)
		}
	}
	if _, err := engine.QueryVectors(corpusCfg, chunk, "lsa-x", embed.Options{}); err == nil || !strings.Contains(err.Error(), "dimension must be an integer") {
		t.Errorf("bad model: %v", err)
	}
	missing, err := engine.QueryVectors(corpus.Config{Path: "testdata/nope.jsonl"}, chunk, "lsa-8", embed.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, err := missing(ctx, "q"); err == nil || !strings.Contains(err.Error(), "nope.jsonl") {
			t.Errorf("missing corpus: %v", err)
		}
	}
}
