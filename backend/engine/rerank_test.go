package engine_test

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/backend/engine"
	"github.com/fusiontune/fusiontune/backend/rerank/reranktest"
)

// tinyTexts maps each fixture document to the text the rerank stage
// sends for it: its title, a blank line, its text.
func tinyTexts(t *testing.T) map[string]string {
	t.Helper()
	f, err := os.Open("testdata/tiny/corpus.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var d struct{ ID, Title, Text string }
		var raw map[string]string
		if err := json.Unmarshal(sc.Bytes(), &raw); err != nil {
			t.Fatal(err)
		}
		d.ID, d.Title, d.Text = raw["_id"], raw["title"], raw["text"]
		out[d.ID] = d.Title + "\n\n" + d.Text
	}
	return out
}

func ids(hits []backend.Hit) []string {
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.DocID
	}
	return out
}

func TestRerankStage(t *testing.T) {
	srv := reranktest.Start()
	defer srv.Close()
	ctx := context.Background()
	const query = "mountains far from city light"
	plain := build(t, tinyConfig(t, nil))
	fused, err := plain.Search(ctx, backend.SearchRequest{Query: query, K: 8})
	if err != nil {
		t.Fatal(err)
	}
	texts := tinyTexts(t)
	const window = 5
	// weight 1: the window in the reranker's order (ties by fused
	// position), the rest as fused, cut at k.
	want := slices.Clone(ids(fused.Hits))
	sort.SliceStable(want[:window], func(a, b int) bool {
		return reranktest.Score(query, texts[want[a]]) > reranktest.Score(query, texts[want[b]])
	})
	one := 1.0
	zero := 0.0
	cacheDir := t.TempDir()
	withRerank := func(weight *float64) engine.Config {
		return tinyConfig(t, func(c *engine.Config) {
			c.CacheDir = cacheDir
			c.Rerank = &engine.RerankConfig{URL: srv.URL, Model: "tiny", Window: window, Weight: weight}
		})
	}
	e := build(t, withRerank(&one))
	got, err := e.Search(ctx, backend.SearchRequest{Query: query, K: 6, Timings: true})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ids(got.Hits), want[:6]) {
		t.Errorf("reranked = %v, want %v (fused %v)", ids(got.Hits), want[:6], ids(fused.Hits))
	}
	if slices.Equal(want[:window], ids(fused.Hits)[:window]) {
		t.Errorf("the reranker keeps the fused order %v: the test shows nothing", want[:window])
	}
	if got.Timings == nil || got.Timings.RerankMS <= 0 {
		t.Errorf("timings = %+v, want a rerank time", got.Timings)
	}
	for i := 1; i < len(got.Hits); i++ {
		if got.Hits[i].Score > got.Hits[i-1].Score {
			t.Errorf("scores not descending: %v", got.Hits)
		}
	}
	if total, distinct := srv.Scored(); total != window || distinct != window {
		t.Errorf("reranker scored %d pairs (%d distinct), want %d", total, distinct, window)
	}
	// Again, and from a second engine on the same cache: no new pair.
	if _, err := e.Search(ctx, backend.SearchRequest{Query: query, K: 6}); err != nil {
		t.Fatal(err)
	}
	e2 := build(t, withRerank(&zero))
	got0, err := e2.Search(ctx, backend.SearchRequest{Query: query, K: 6})
	if err != nil {
		t.Fatal(err)
	}
	if total, _ := srv.Scored(); total != window || e2.RerankSent() != 0 {
		t.Errorf("cached pairs went to the reranker again: %d pairs scored, second engine sent %d", total, e2.RerankSent())
	}
	// With explain, the reranker's score of every candidate, each what the
	// stage reads for a hit on it.
	ex, err := e2.Search(ctx, backend.SearchRequest{Query: query, K: 6, Explain: true})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, list := range ex.Candidates {
		for _, c := range list {
			n++
			if got, ok := ex.Rerank[c.ID]; !ok || got != reranktest.Score(query, texts[c.ID]) {
				t.Errorf("rerank[%s] = %v, %v, want %v", c.ID, got, ok, reranktest.Score(query, texts[c.ID]))
			}
		}
	}
	if n == 0 || len(ex.Rerank) > n {
		t.Errorf("%d candidates, %d rerank scores", n, len(ex.Rerank))
	}
	// weight 0: the fused order.
	if !slices.Equal(ids(got0.Hits), ids(fused.Hits)[:6]) {
		t.Errorf("weight 0 = %v, want the fused %v", ids(got0.Hits), ids(fused.Hits)[:6])
	}
	// A failing reranker fails the search, naming the stage.
	srv.Fail(true)
	if _, err := e.Search(ctx, backend.SearchRequest{Query: "a query never seen", K: 3}); err == nil || !strings.Contains(err.Error(), "rerank stage") {
		t.Errorf("failing reranker: err = %v", err)
	}
}

func TestRerankConfigChecks(t *testing.T) {
	c := tinyConfig(t, nil)
	tests := []struct {
		name   string
		params map[string]any
		want   string
	}{
		{"enabled without a url", map[string]any{"rerank.enabled": true}, "rerank.url: required"},
		{"weight above 1", map[string]any{"rerank.weight": 1.5}, "rerank.weight: must be between 0 and 1"},
		{"window too large", map[string]any{"rerank.window": 5000}, "rerank.window: must be between 1 and 1000"},
		{"window not an integer", map[string]any{"rerank.window": 2.5}, "rerank.window"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := c.WithParams(tt.params)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want it to contain %q", err, tt.want)
			}
		})
	}
	c.Rerank = &engine.RerankConfig{URL: "http://127.0.0.1:1/rerank"}
	out, err := c.WithParams(map[string]any{"rerank.window": 7, "rerank.weight": 0.25, "rerank.enabled": false})
	if err != nil {
		t.Fatal(err)
	}
	if out.Rerank.Window != 7 || *out.Rerank.Weight != 0.25 || out.Rerank.On() || c.Rerank.Window != 0 {
		t.Errorf("WithParams = %+v (original %+v)", *out.Rerank, *c.Rerank)
	}
}
