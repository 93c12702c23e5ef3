package engine_test

import (
	"context"
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/backend/corpus"
	"github.com/fusiontune/fusiontune/backend/engine"
	"github.com/fusiontune/fusiontune/backend/fusion"
)

// TestSearchResponseBytes: POST /search answers, byte for byte, what
// encoding/json's Marshal writes for the engine's response (plus the
// newline writeJSON adds), on real responses: the tiny fixture in
// document and passage mode (chunk ids, excerpts cut with "…"), SciFact
// (5,183 abstracts, every query, when ../shared/data is present), with
// k from 1 to 100, fusion overrides, variants (some with no results),
// explain (left to encoding/json) and min_score floors.
func TestSearchResponseBytes(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	type setup struct {
		name    string
		cfg     func(t *testing.T) engine.Config
		queries func(t *testing.T) []string
	}
	tinyQueries := func(t *testing.T) []string {
		var qs []string
		for _, q := range readQueries(t, "testdata/tiny/queries.jsonl") {
			qs = append(qs, q.Text)
		}
		return append(qs, "zzz unknown words", `quotes " and <html> & \ backslashes`, "ünïcödé\u2028line")
	}
	setups := []setup{
		{"tiny documents", func(t *testing.T) engine.Config { return tinyConfig(t, nil) }, tinyQueries},
		{"tiny passages", func(t *testing.T) engine.Config {
			return tinyConfig(t, func(c *engine.Config) {
				c.Chunk = corpus.ChunkConfig{Size: 8, Overlap: 2}
				c.MinScore = f(0.01)
			})
		}, tinyQueries},
		{"scifact", func(t *testing.T) engine.Config { return benchQueryConfig(t, t.TempDir()) }, func(t *testing.T) []string {
			var qs []string
			for _, q := range readQueries(t, filepath.Join(sharedData(t, "scifact"), "queries.jsonl")) {
				qs = append(qs, q.Text)
			}
			return qs
		}},
	}
	variants := []fusion.Params{
		{Method: fusion.Linear, Normalization: fusion.ZScore},
		{Method: fusion.RRF, K: 1000, Weights: map[string]float64{"bm25": 0.2}},
	}
	for _, s := range setups {
		t.Run(s.name, func(t *testing.T) {
			queries := s.queries(t)
			e := build(t, s.cfg(t))
			srv := engine.NewServer(e, engine.ServerOptions{})
			for i, q := range queries {
				reqs := []backend.SearchRequest{{Query: q, K: 10}, {Query: q, K: 1 + i%100}}
				if i%5 == 0 {
					reqs = append(reqs, backend.SearchRequest{Query: q, K: 5, Variants: variants},
						backend.SearchRequest{Query: q, K: 3, Explain: true},
						backend.SearchRequest{Query: q, Fusion: &fusion.Params{Method: fusion.CombSUM, Normalization: fusion.MinMax}})
				}
				for _, req := range reqs {
					resp, err := e.Search(context.Background(), req)
					if err != nil {
						t.Fatal(err)
					}
					want, err := json.Marshal(resp)
					if err != nil {
						t.Fatal(err)
					}
					body, _ := json.Marshal(req)
					w := newRecorder()
					srv.ServeHTTP(w, mustPost(t, string(body)))
					if w.status != http.StatusOK || w.header.Get("Content-Type") != "application/json" {
						t.Fatalf("%s: status %d, content type %q", body, w.status, w.header.Get("Content-Type"))
					}
					if got := w.body.String(); got != string(want)+"\n" {
						t.Fatalf("%s:\n got %s\nwant %s", body, got, want)
					}
				}
			}
		})
	}
}

func mustPost(t *testing.T, body string) *http.Request {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, "/search", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	return req
}
