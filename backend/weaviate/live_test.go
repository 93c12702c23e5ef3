package weaviate_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/backend/corpus"
	"github.com/fusiontune/fusiontune/backend/embed"
	"github.com/fusiontune/fusiontune/backend/fusion"
	"github.com/fusiontune/fusiontune/backend/weaviate"
	"github.com/fusiontune/fusiontune/backend/weaviate/weaviatetest"
)

// synthetic returns a deterministic corpus of n documents and m queries
// over a small vocabulary, so that BM25 and vector legs overlap partly.
func synthetic(n, m int) (docs []weaviate.Object, queries []string) {
	r := rand.New(rand.NewPCG(7, 11))
	vocab := make([]string, 300)
	for i := range vocab {
		vocab[i] = fmt.Sprintf("w%03d", i)
	}
	word := func() string { return vocab[int(float64(len(vocab))*r.Float64()*r.Float64())] } // skewed
	for i := range n {
		ws := make([]string, 8+r.IntN(40))
		for j := range ws {
			ws[j] = word()
		}
		docs = append(docs, weaviate.Object{DocID: fmt.Sprintf("d%04d", i), Text: strings.Join(ws, " ")})
	}
	for range m {
		ws := make([]string, 2+r.IntN(3))
		for j := range ws {
			ws[j] = word()
		}
		queries = append(queries, strings.Join(ws, " "))
	}
	return docs, queries
}

func candidates(hits []weaviate.Hit) []fusion.Candidate {
	out := make([]fusion.Candidate, len(hits))
	for i, h := range hits {
		out[i] = fusion.Candidate{ID: h.UUID, DocID: h.DocID, Score: h.Score, Rank: i + 1}
	}
	return out
}

// liveFixture starts a server with depth maxResults and loads the
// synthetic corpus with hash-64 vectors into class Ft.
func liveFixture(t *testing.T, maxResults int) (*weaviate.Server, *weaviate.Client, embed.Embedder, []string) {
	t.Helper()
	s := weaviatetest.Start(t, maxResults)
	ctx := context.Background()
	c := weaviate.NewClient(s.URL)
	docs, queries := synthetic(400, 60)
	emb, err := embed.New("hash-64", embed.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ids, texts := make([]string, len(docs)), make([]string, len(docs))
	for i, d := range docs {
		ids[i], texts[i] = d.DocID, d.Text
	}
	vecs, err := emb.EmbedDocuments(ctx, ids, texts)
	if err != nil {
		t.Fatal(err)
	}
	for i := range docs {
		docs[i].Vector = vecs[i]
	}
	if err := c.CreateClass(ctx, weaviate.ClassConfig{Name: "Ft", K1: 1.2, B: 0.75}); err != nil {
		t.Fatal(err)
	}
	if err := c.Load(ctx, "Ft", docs, 100); err != nil {
		t.Fatal(err)
	}
	// Flush the import (see Backend.settle), as the kind does.
	if err := s.Restart(ctx, maxResults); err != nil {
		t.Fatal(err)
	}
	return s, weaviate.NewClient(s.URL), emb, queries
}

// TestKindSettlesAfterLoad checks that the kind's first answers after
// loading a class are the ones it gives for good: Weaviate's BM25 scores
// of a fresh import change when its memtables are flushed (here every one
// of 60 queries scored differently before and after a restart), so the
// kind restarts a server it started after each load. The BM25 leg of 60
// queries right after Apply must equal the leg after a further restart
// (a depth change).
func TestKindSettlesAfterLoad(t *testing.T) {
	bin, err := weaviatetest.Bin()
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%v, and CI=true", err)
		}
		t.Skip(err)
	}
	docs, queries := synthetic(400, 60)
	dir := t.TempDir()
	var lines strings.Builder
	for _, d := range docs {
		b, _ := json.Marshal(map[string]string{"_id": d.DocID, "text": d.Text})
		lines.Write(append(b, '\n'))
	}
	path := filepath.Join(dir, "corpus.jsonl")
	if err := os.WriteFile(path, []byte(lines.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := weaviate.New(weaviate.Options{Bin: bin, Model: "hash-64", Corpus: corpus.Config{Path: path}})
	if err != nil {
		t.Fatal(err)
	}
	b, err := f.Open(filepath.Join(dir, "run"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	ctx := context.Background()
	legs := func(params map[string]any) [][]fusion.Candidate {
		if err := b.Apply(ctx, params); err != nil {
			t.Fatal(err)
		}
		if err := b.Restart(ctx); err != nil {
			t.Fatal(err)
		}
		var out [][]fusion.Candidate
		for _, q := range queries {
			resp, err := b.Search(ctx, backend.SearchRequest{Query: q, K: 10, Explain: true})
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, resp.Candidates["bm25"][:min(10, len(resp.Candidates["bm25"]))])
		}
		return out
	}
	first := legs(nil)
	again := legs(map[string]any{"depth": 50})
	for i := range first {
		if !reflect.DeepEqual(first[i], again[i]) {
			t.Fatalf("query %q: BM25 leg right after the load %v, after a restart %v", queries[i], first[i], again[i])
		}
	}
}

// compareHybrid runs q live and fused offline from its legs issued alone
// at depth, and returns a mismatch description ("" when equal: same ids in
// the same order, bit-identical float32 scores).
func compareHybrid(t *testing.T, c *weaviate.Client, q weaviate.HybridQuery, depth int) string {
	t.Helper()
	ctx := context.Background()
	live, err := c.Hybrid(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	kw, err := c.BM25(ctx, q.Class, q.Query, depth)
	if err != nil {
		t.Fatal(err)
	}
	vec, err := c.NearVector(ctx, q.Class, q.Vector, depth)
	if err != nil {
		t.Fatal(err)
	}
	off := fusion.WeaviateHybrid(q.FusionType, q.Alpha, candidates(vec), candidates(kw))
	if len(off) > q.Limit {
		off = off[:q.Limit]
	}
	if len(live) != len(off) {
		return fmt.Sprintf("%d live hits, %d offline", len(live), len(off))
	}
	for i := range live {
		if live[i].DocID != off[i].DocID || live[i].Score != off[i].Score {
			return fmt.Sprintf("hit %d: live %s %.9g, offline %s %.9g", i, live[i].DocID, live[i].Score, off[i].DocID, off[i].Score)
		}
	}
	return ""
}

// TestHybridEqualsOfflineFusion is the formula check: on 60 queries, both
// fusion types and five alphas, Weaviate's live hybrid answer equals the
// offline fusion (fusion.WeaviateHybrid) of its two legs issued alone, hit
// for hit and score for score (float32, bit-identical).
func TestHybridEqualsOfflineFusion(t *testing.T) {
	const depth = 30
	_, c, emb, queries := liveFixture(t, depth)
	ctx := context.Background()
	checked := 0
	for _, qs := range queries {
		vec, err := emb.EmbedQuery(ctx, qs)
		if err != nil {
			t.Fatal(err)
		}
		for _, ft := range []string{fusion.WeaviateRankedFusion, fusion.WeaviateRelativeScoreFusion} {
			for _, alpha := range []float64{0, 0.2, 0.5, 0.75, 1} {
				q := weaviate.HybridQuery{Class: "Ft", Query: qs, Vector: vec, Alpha: alpha, FusionType: ft, Limit: depth}
				if msg := compareHybrid(t, c, q, depth); msg != "" {
					t.Errorf("query %q, %s, alpha %g: %s", qs, ft, alpha, msg)
				}
				checked++
			}
		}
	}
	if len(queries) < 50 || checked != len(queries)*10 {
		t.Fatalf("checked %d configs on %d queries, want 10 on >= 50", checked, len(queries))
	}
}

// TestBM25AndDepthChanges checks the two engine settings the kind changes
// outside the query: BM25 k1 and b through a schema update (live; scores
// change and the offline fusion still matches), and the per-leg depth
// through QUERY_HYBRID_MAXIMUM_RESULTS (restart; the live answer matches
// the legs at the new depth, not at the old one).
func TestBM25AndDepthChanges(t *testing.T) {
	s, c, emb, queries := liveFixture(t, 30)
	ctx := context.Background()
	qs := queries[0]
	vec, err := emb.EmbedQuery(ctx, qs)
	if err != nil {
		t.Fatal(err)
	}
	before, err := c.BM25(ctx, "Ft", qs, 10)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.SetBM25(ctx, "Ft", 2.5, 0.1); err != nil {
		t.Fatal(err)
	}
	after, err := c.BM25(ctx, "Ft", qs, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(before) == 0 || before[0].Score == after[0].Score {
		t.Fatalf("BM25 top score %v before and %v after k1=2.5 b=0.1: the schema update changed nothing", before, after)
	}
	rel := weaviate.HybridQuery{Class: "Ft", Query: qs, Vector: vec, Alpha: 0.5, FusionType: fusion.WeaviateRelativeScoreFusion, Limit: 5}
	if msg := compareHybrid(t, c, rel, 30); msg != "" {
		t.Fatalf("after the BM25 update: %s", msg)
	}

	if err := s.Restart(ctx, 8); err != nil {
		t.Fatal(err)
	}
	c = weaviate.NewClient(s.URL)
	differs := 0
	for _, qs := range queries[:20] {
		vec, err := emb.EmbedQuery(ctx, qs)
		if err != nil {
			t.Fatal(err)
		}
		q := weaviate.HybridQuery{Class: "Ft", Query: qs, Vector: vec, Alpha: 0.5, FusionType: fusion.WeaviateRelativeScoreFusion, Limit: 5}
		if msg := compareHybrid(t, c, q, 8); msg != "" {
			t.Fatalf("query %q after restart with depth 8: %s", qs, msg)
		}
		if compareHybrid(t, c, q, 30) != "" {
			differs++
		}
	}
	if differs == 0 {
		t.Fatal("no query's answer changed from depth 30 to 8: QUERY_HYBRID_MAXIMUM_RESULTS had no effect")
	}
}
