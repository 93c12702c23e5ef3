package rerank_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/backend/rerank"
	"github.com/fusiontune/fusiontune/backend/rerank/reranktest"
)

func TestClientFormats(t *testing.T) {
	srv := reranktest.Start()
	defer srv.Close()
	docs := []string{"the cat sat", "dogs bark loudly", "a cat and a dog"}
	for _, c := range []*rerank.Client{
		{URL: srv.URL, Model: "m", Format: rerank.FormatCohere},
		{URL: srv.TEIURL(), Format: rerank.FormatTEI},
	} {
		t.Run(string(c.Format), func(t *testing.T) {
			got, err := c.Score(context.Background(), "cat dog", docs)
			if err != nil {
				t.Fatal(err)
			}
			for i, d := range docs {
				if want := reranktest.Score("cat dog", d); got[i] != want {
					t.Errorf("score of %q = %v, want %v", d, got[i], want)
				}
			}
		})
	}
}

func TestClientBadAnswers(t *testing.T) {
	tests := []struct{ name, body, want string }{
		{"missing index", `{"results":[{"index":0,"relevance_score":1}]}`, "1 results for 2 documents"},
		{"repeated index", `{"results":[{"index":0,"relevance_score":1},{"index":0,"relevance_score":2}]}`, "results[1].index: want each of 0..1 once (got 0)"},
		{"no score", `{"results":[{"index":0},{"index":1,"relevance_score":2}]}`, "results[0]: index and score required"},
		{"not json", `oops`, "decode response"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(tt.body)) }))
			defer srv.Close()
			_, err := (&rerank.Client{URL: srv.URL}).Score(context.Background(), "q", []string{"a", "b"})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want it to contain %q", err, tt.want)
			}
		})
	}
	srv := reranktest.Start()
	defer srv.Close()
	srv.Fail(true)
	if _, err := (&rerank.Client{URL: srv.URL}).Score(context.Background(), "q", []string{"a"}); err == nil || !strings.Contains(err.Error(), "400") {
		t.Errorf("a 400 answer: err = %v", err)
	}
}

// TestScorerCache checks that a pair goes to the reranker once, across
// Scorers sharing a cache directory (a second sweep), and that the scores
// read back from disk are the reranker's.
func TestScorerCache(t *testing.T) {
	srv := reranktest.Start()
	defer srv.Close()
	dir := t.TempDir()
	ctx := context.Background()
	client := &rerank.Client{URL: srv.URL, Model: "m"}
	cache, err := rerank.OpenCache(dir)
	if err != nil {
		t.Fatal(err)
	}
	s := &rerank.Scorer{Client: client, Cache: cache}
	first, err := s.Scores(ctx, "cat", []string{"a cat", "no", "a cat"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Scores(ctx, "cat", []string{"no", "a cat", "new one"}); err != nil {
		t.Fatal(err)
	}
	if total, distinct := srv.Scored(); total != 3 || distinct != 3 {
		t.Errorf("scored %d pairs (%d distinct), want 3 and 3", total, distinct)
	}
	if s.Sent() != 3 || s.Requests() != 2 {
		t.Errorf("Sent = %d, Requests = %d, want 3, 2", s.Sent(), s.Requests())
	}
	cache.Close()
	// A model change is another key.
	cache2, err := rerank.OpenCache(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer cache2.Close()
	if cache2.Len() != 3 {
		t.Errorf("reopened cache holds %d scores, want 3", cache2.Len())
	}
	s2 := &rerank.Scorer{Client: client, Cache: cache2}
	again, err := s2.Scores(ctx, "cat", []string{"a cat", "no", "a cat"})
	if err != nil {
		t.Fatal(err)
	}
	if s2.Sent() != 0 || again[0] != first[0] || again[1] != first[1] {
		t.Errorf("from disk: sent %d, scores %v, want 0 and %v", s2.Sent(), again, first)
	}
	other := &rerank.Scorer{Client: &rerank.Client{URL: srv.URL, Model: "other"}, Cache: cache2}
	if _, err := other.Scores(ctx, "cat", []string{"a cat"}); err != nil || other.Sent() != 1 {
		t.Errorf("another model: sent %d (err %v), want 1", other.Sent(), err)
	}
}

func TestCacheCutLineAndBadLine(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, rerank.CacheFile)
	k := rerank.Key("m", "q", "d")
	os.WriteFile(path, []byte(`{"key":"`+k+`","score":0.5}`+"\n"+`{"key":"ab`), 0o644)
	c, err := rerank.OpenCache(dir)
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := c.Get(k); !ok || v != 0.5 || c.Len() != 1 {
		t.Errorf("Get = %v, %v; Len %d", v, ok, c.Len())
	}
	c.Close()
	os.WriteFile(path, []byte("{\"key\":\"x\"}\n"), 0o644)
	if _, err := rerank.OpenCache(dir); err == nil || !strings.Contains(err.Error(), path+":1") {
		t.Errorf("bad line: err = %v", err)
	}
}
