package weaviate_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/backend/corpus"
	"github.com/fusiontune/fusiontune/backend/weaviate"
	"github.com/fusiontune/fusiontune/backend/weaviate/weaviatetest"
	"github.com/fusiontune/fusiontune/experiments/shareddata"
)

// TestBM25DepthStable loads SciFact's corpus into a server started as
// the kind starts its own and checks that the BM25 leg does not depend on
// its depth: for every test query, the top 90 at limit 100 equal the top
// 90 at limit 1000, and query 475 holds document 195689757 at limit 100
// (rank 2 at other limits). Under BlockMax WAND (Weaviate's default
// inverted index, USE_INVERTED_SEARCHABLE unset) the block bounds are
// computed from the average length and BM25 settings of the flush that
// wrote each segment, so blocks are skipped that hold documents of the
// true top k, and which ones depends on the limit: set
// FUSIONTUNE_WEAVIATE_BLOCKMAX=1 to see this test fail on that index.
func TestBM25DepthStable(t *testing.T) {
	dir := shareddata.Path(t, "scifact")
	c0, err := corpus.Load(corpus.Config{Path: filepath.Join(dir, "corpus.jsonl"), Format: corpus.FormatBEIR})
	if err != nil {
		t.Fatal(err)
	}
	chunks, texts, err := corpus.IndexTexts(c0.Docs, corpus.ChunkConfig{})
	if err != nil {
		t.Fatal(err)
	}
	var env []string
	if os.Getenv("FUSIONTUNE_WEAVIATE_BLOCKMAX") == "1" {
		env = []string{"USE_INVERTED_SEARCHABLE=true"}
	}
	s := weaviatetest.StartWith(t, weaviate.ServerOptions{MaxResults: 100, Env: env})
	ctx := context.Background()
	c := weaviate.NewClient(s.URL)
	if err := c.CreateClass(ctx, weaviate.ClassConfig{Name: "Scifact", K1: 1.2, B: 0.75}); err != nil {
		t.Fatal(err)
	}
	objs := make([]weaviate.Object, len(chunks))
	for i, ch := range chunks {
		objs[i] = weaviate.Object{DocID: ch.DocID, Text: texts[i], Vector: []float32{1, float32(i%7) + 1}}
	}
	if err := c.Load(ctx, "Scifact", objs, 500); err != nil {
		t.Fatal(err)
	}
	if err := s.Restart(ctx, 100); err != nil { // flush the import, as the kind does
		t.Fatal(err)
	}
	c = weaviate.NewClient(s.URL)
	queries := readQueries(t, filepath.Join(dir, "queries.jsonl"), filepath.Join(dir, "qrels", "test.tsv"))
	ids := func(q string, limit int) []string {
		hits, err := c.BM25(ctx, "Scifact", q, limit)
		if err != nil {
			t.Fatal(err)
		}
		out := make([]string, len(hits))
		for i, h := range hits {
			out[i] = h.DocID
		}
		return out
	}
	differ := 0
	for _, q := range queries {
		at100, at1000 := ids(q.text, 100), ids(q.text, 1000)
		n := min(90, len(at100), len(at1000))
		if !slices.Equal(at100[:n], at1000[:n]) {
			differ++
			t.Errorf("query %s: the top %d of the BM25 leg differ between limit 100 and 1000", q.id, n)
		}
		if q.id == "475" && !slices.Contains(at100, "195689757") {
			t.Errorf("query 475: document 195689757 missing from the BM25 leg at limit 100 (%d hits)", len(at100))
		}
	}
	t.Logf("%d of %d queries: the BM25 leg's top 90 differ between limit 100 and 1000", differ, len(queries))
}

type idText struct{ id, text string }

// readQueries reads the BEIR queries judged in qrels.
func readQueries(t *testing.T, path, qrels string) []idText {
	t.Helper()
	judged := map[string]bool{}
	data, err := os.ReadFile(qrels)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n")[1:] {
		if f := strings.Split(line, "\t"); len(f) > 0 {
			judged[f[0]] = true
		}
	}
	data, err = os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []idText
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var q struct {
			ID   string `json:"_id"`
			Text string `json:"text"`
		}
		if err := json.Unmarshal([]byte(line), &q); err != nil {
			t.Fatal(err)
		}
		if judged[q.ID] {
			out = append(out, idText{q.ID, q.Text})
		}
	}
	return out
}
