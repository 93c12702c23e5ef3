package engine

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"testing"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search"
	index "github.com/blevesearch/bleve_index_api"
	"github.com/fusiontune/fusiontune/backend/corpus"
)

// The bleve v2.5.7 scorch index the engine used before its own inverted
// index, kept here as the reference TestLexicalMatchesBleve compares with:
// one field, BM25, a single segment written by the offline builder.

const bleveBody = "body"

func bleveMapping() *mapping.IndexMappingImpl {
	m := bleve.NewIndexMapping()
	m.DefaultAnalyzer = Analyzer
	m.ScoringModel = index.BM25Scoring
	body := bleve.NewTextFieldMapping()
	body.Analyzer = Analyzer
	body.Store = false
	body.IncludeTermVectors = false
	body.IncludeInAll = false
	body.DocValues = false
	m.DefaultMapping.AddFieldMappingsAt(bleveBody, body)
	m.DefaultMapping.Dynamic = false
	m.StoreDynamic = false
	m.IndexDynamic = false
	m.DocValuesDynamic = false
	return m
}

// buildBleve indexes chunks as the engine did: bleve's offline builder,
// batches of 1000, closed into one segment, opened read-only.
func buildBleve(tb testing.TB, chunks []corpus.Chunk, titles []string) bleve.Index {
	tb.Helper()
	dir := filepath.Join(tb.TempDir(), "bleve")
	b, err := bleve.NewBuilder(dir, bleveMapping(), map[string]any{"batchSize": 1000, "buildPathPrefix": tb.TempDir()})
	if err != nil {
		tb.Fatal(err)
	}
	for i, c := range chunks {
		if err := b.Index(c.ID, map[string]any{bleveBody: corpus.IndexText(titles[i], c.Text)}); err != nil {
			tb.Fatal(err)
		}
	}
	if err := b.Close(); err != nil {
		tb.Fatal(err)
	}
	idx, err := bleve.OpenUsing(dir, map[string]any{"read_only": true})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { idx.Close() })
	return idx
}

// bleveSearch is the engine's former bm25 search: bleve's match query for
// depth+10 hits by raw score, rounded, re-sorted by rankedBefore, cut at
// depth. raw holds the hits' unrounded scores by chunk index.
func bleveSearch(tb testing.TB, idx bleve.Index, bm BM25Config, query string, depth int, chunks []corpus.Chunk, chunkOf map[string]int) (out []scored, raw map[int]float64) {
	tb.Helper()
	search.BM25_k1, search.BM25_b = bm.K1, bm.B
	q := bleve.NewMatchQuery(query)
	q.SetField(bleveBody)
	q.Analyzer = Analyzer
	res, err := idx.Search(bleve.NewSearchRequestOptions(q, depth+10, 0, false))
	if err != nil {
		tb.Fatal(err)
	}
	raw = map[int]float64{}
	for _, h := range res.Hits {
		i := chunkOf[h.ID]
		raw[i] = h.Score
		out = append(out, scored{idx: i, score: roundScore(h.Score)})
	}
	sort.Slice(out, func(a, b int) bool { return rankedBefore(chunks, out[a], out[b]) })
	return out[:min(depth, len(out))], raw
}

// compareWithBleve builds both indexes over chunks and compares every
// query's ranked ids and rounded scores at depth; it returns the largest
// absolute difference of unrounded scores of the chunks both ranked.
func compareWithBleve(t *testing.T, chunks []corpus.Chunk, titles []string, queries []string, bms []BM25Config, depth int) float64 {
	t.Helper()
	chunkOf := make(map[string]int, len(chunks))
	for i, c := range chunks {
		chunkOf[c.ID] = i
	}
	idx := buildBleve(t, chunks, titles)
	dir := filepath.Join(t.TempDir(), "bm25")
	ctx := context.Background()
	if _, err := buildLexical(ctx, dir, chunkTexts{chunks: chunks, titles: titles}, bms[0]); err != nil {
		t.Fatal(err)
	}
	maxDiff := 0.0
	for _, bm := range bms {
		l, err := openLexical(dir, len(chunks), bm)
		if err != nil {
			t.Fatal(err)
		}
		bad := 0
		for _, q := range queries {
			want, raw := bleveSearch(t, idx, bm, q, depth, chunks, chunkOf)
			got, err := l.search(ctx, q, depth, chunks)
			if err != nil {
				t.Fatal(err)
			}
			acc := l.accs.Get().(*accumulator)
			clauses, err := l.match(ctx, q, acc)
			if err != nil {
				t.Fatal(err)
			}
			for d, s := range raw {
				if acc.matched[d] == 0 {
					t.Fatalf("k1 %v b %v query %q: bleve matched chunk %s, the index did not", bm.K1, bm.B, q, chunks[d].ID)
				}
				maxDiff = max(maxDiff, abs(s-acc.sum[d]*(float64(acc.matched[d])/clauses)))
			}
			acc.reset()
			l.accs.Put(acc)
			if d := diffScored(want, got, chunks); d != "" {
				bad++
				if bad <= 5 {
					t.Errorf("k1 %v b %v query %q: %s", bm.K1, bm.B, q, d)
				}
			}
		}
		if bad > 0 {
			t.Errorf("k1 %v b %v: %d of %d queries differ", bm.K1, bm.B, bad, len(queries))
		}
	}
	return maxDiff
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

func diffScored(want, got []scored, chunks []corpus.Chunk) string {
	if len(want) != len(got) {
		return fmt.Sprintf("%d hits, bleve %d", len(got), len(want))
	}
	for i := range want {
		if want[i] != got[i] {
			return fmt.Sprintf("rank %d: %s %.9f, bleve %s %.9f", i+1, chunks[got[i].idx].ID, got[i].score, chunks[want[i].idx].ID, want[i].score)
		}
	}
	return ""
}

// equalityParams are the BM25 parameters compared: the defaults, the
// classic 1.2/0.75, and the extremes of b.
var equalityParams = []BM25Config{{K1: DefaultK1, B: DefaultB}, {K1: 1.2, B: 0.75}, {K1: 2, B: 0}, {K1: 0.5, B: 1}}

func chunksOf(t testing.TB, c corpus.Config, size, overlap int) ([]corpus.Chunk, []string) {
	t.Helper()
	loaded, err := corpus.Load(c)
	if err != nil {
		t.Fatal(err)
	}
	chunks, err := corpus.ChunkDocuments(loaded.Docs, size, overlap)
	if err != nil {
		t.Fatal(err)
	}
	titles := make([]string, len(chunks))
	di := 0
	for i, ch := range chunks {
		for loaded.Docs[di].ID != ch.DocID {
			di++
		}
		titles[i] = loaded.Docs[di].Title
	}
	return chunks, titles
}
