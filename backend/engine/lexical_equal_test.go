package engine

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/fusiontune/fusiontune/backend/corpus"
	"github.com/fusiontune/fusiontune/experiments/shareddata"
)

// TestLexicalMatchesBleve: the engine's inverted index ranks and scores
// (rounded to 1e-9) exactly as the bleve v2.5.7 index it replaced, for
// every golden query of the demo (whole documents and 64/16-token chunks)
// at depth 1000 under four k1/b settings.
func TestLexicalMatchesBleve(t *testing.T) {
	var golden struct {
		Queries []struct {
			Query string `json:"query"`
		} `json:"queries"`
	}
	data, err := os.ReadFile("../../experiments/demo/golden.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &golden); err != nil {
		t.Fatal(err)
	}
	queries := []string{"", "the of and", "boiler boiler pressure", "thermostat's"}
	for _, q := range golden.Queries {
		queries = append(queries, q.Query)
	}
	c := corpus.Config{Path: "../../experiments/demo/corpus.jsonl", Format: corpus.FormatBEIR}
	for _, ch := range []struct{ size, overlap int }{{0, 0}, {64, 16}} {
		chunks, titles := chunksOf(t, c, ch.size, ch.overlap)
		d := compareWithBleve(t, chunks, titles, queries, equalityParams, 1000)
		t.Logf("demo, chunks %d/%d: %d chunks, %d queries x %d k1/b: max |score - bleve's| before rounding %.3g", ch.size, ch.overlap, len(chunks), len(queries), len(equalityParams), d)
	}
}

// TestLexicalMatchesBleveSciFact: the same on SciFact (../shared/data),
// all its queries, whole documents, at depth 1000.
func TestLexicalMatchesBleveSciFact(t *testing.T) {
	dir := shareddata.Path(t, "scifact")
	f, err := os.Open(filepath.Join(dir, "queries.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var queries []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var q struct {
			Text string `json:"text"`
		}
		if err := json.Unmarshal(sc.Bytes(), &q); err != nil {
			t.Fatal(err)
		}
		queries = append(queries, q.Text)
	}
	chunks, titles := chunksOf(t, corpus.Config{Path: filepath.Join(dir, "corpus.jsonl"), Format: corpus.FormatBEIR}, 0, 0)
	params := equalityParams[:2]
	if testing.Short() {
		params = params[:1]
	}
	d := compareWithBleve(t, chunks, titles, queries, params, 1000)
	t.Logf("scifact: %d chunks, %d queries x %d k1/b: max |score - bleve's| before rounding %.3g", len(chunks), len(queries), len(params), d)
}

// BenchmarkLexicalSearch is the bm25 retriever alone on SciFact (whole
// documents, depth 100, the 300 queries in turn): the engine's index and
// the bleve index it replaced, side by side under the same load.
func BenchmarkLexicalSearch(b *testing.B) {
	dir := shareddata.Path(b, "scifact")
	f, err := os.Open(filepath.Join(dir, "queries.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	var queries []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var q struct {
			Text string `json:"text"`
		}
		json.Unmarshal(sc.Bytes(), &q)
		queries = append(queries, q.Text)
	}
	f.Close()
	chunks, titles := chunksOf(b, corpus.Config{Path: filepath.Join(dir, "corpus.jsonl"), Format: corpus.FormatBEIR}, 0, 0)
	chunkOf := make(map[string]int, len(chunks))
	for i, c := range chunks {
		chunkOf[c.ID] = i
	}
	bm := DefaultConfig().BM25
	ctx := context.Background()
	b.Run("index", func(b *testing.B) {
		l, err := buildLexical(ctx, filepath.Join(b.TempDir(), "bm25"), chunkTexts{chunks: chunks, titles: titles}, bm)
		if err != nil {
			b.Fatal(err)
		}
		for i := 0; b.Loop(); i++ {
			if _, err := l.search(ctx, queries[i%len(queries)], 100, chunks); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("bleve", func(b *testing.B) {
		idx := buildBleve(b, chunks, titles)
		for i := 0; b.Loop(); i++ {
			bleveSearch(b, idx, bm, queries[i%len(queries)], 100, chunks, chunkOf)
		}
	})
}
