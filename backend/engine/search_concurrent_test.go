package engine_test

import (
	"context"
	"encoding/json"
	"sync"
	"testing"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/backend/corpus"
	"github.com/fusiontune/fusiontune/backend/engine"
)

// TestConcurrentSearchesAnswerAlike: searches running beside others
// (their dense retrieval after BM25 instead of beside it) answer exactly
// as the same searches one at a time.
func TestConcurrentSearchesAnswerAlike(t *testing.T) {
	e := build(t, tinyConfig(t, func(c *engine.Config) { c.Chunk = corpus.ChunkConfig{Size: 8, Overlap: 2} }))
	var queries []string
	for _, q := range readQueries(t, "testdata/tiny/queries.jsonl") {
		queries = append(queries, q.Text)
	}
	answer := func(q string) string {
		resp, err := e.Search(context.Background(), backend.SearchRequest{Query: q, K: 10, Explain: true})
		if err != nil {
			t.Error(err)
		}
		data, _ := json.Marshal(resp)
		return string(data)
	}
	want := make([]string, len(queries))
	for i, q := range queries {
		want[i] = answer(q)
	}
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for r := range 50 {
				i := (w + r) % len(queries)
				if got := answer(queries[i]); got != want[i] {
					t.Errorf("query %q beside others:\n got %s\nwant %s", queries[i], got, want[i])
					return
				}
			}
		})
	}
	wg.Wait()
}
