package engine_test

import (
	"context"
	"testing"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/backend/engine"
)

// TestSearchStageTimings: the engine reports its per-stage timings with
// timings, over HTTP too, and none otherwise (explain alone stays
// deterministic); a retriever it does not run takes 0 ms.
func TestSearchStageTimings(t *testing.T) {
	bm25Only := func(c *engine.Config) { c.Retrievers = []string{engine.BM25} }
	tests := []struct {
		name      string
		edit      func(*engine.Config)
		req       backend.SearchRequest
		want      bool
		denseZero bool
	}{
		{"plain search", nil, backend.SearchRequest{Query: "sourdough starter"}, false, false},
		{"timings", nil, backend.SearchRequest{Query: "sourdough starter", Timings: true}, true, false},
		{"explain", nil, backend.SearchRequest{Query: "sourdough starter", Explain: true}, false, false},
		{"explain and timings", nil, backend.SearchRequest{Query: "sourdough starter", Explain: true, Timings: true}, true, false},
		{"bm25 only", bm25Only, backend.SearchRequest{Query: "sourdough starter", Timings: true}, true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, via := range []string{"in-process", "http"} {
				var s backend.Searcher
				if via == "http" {
					s = serve(t, tinyConfig(t, tt.edit))
				} else {
					s = build(t, tinyConfig(t, tt.edit))
				}
				if rd, ok := s.(interface{ Ready(context.Context) error }); ok {
					if err := rd.Ready(context.Background()); err != nil {
						t.Fatal(err)
					}
				}
				r, err := s.Search(context.Background(), tt.req)
				if err != nil {
					t.Fatal(err)
				}
				if (r.Timings != nil) != tt.want {
					t.Fatalf("%s: timings %+v, want present %v", via, r.Timings, tt.want)
				}
				if r.Timings == nil {
					continue
				}
				if r.Timings.LexicalMS < 0 || r.Timings.DenseMS < 0 || r.Timings.FusionMS < 0 {
					t.Errorf("%s: negative timings %+v", via, *r.Timings)
				}
				if tt.denseZero && r.Timings.DenseMS != 0 {
					t.Errorf("%s: dense %v ms without a dense retriever, want 0", via, r.Timings.DenseMS)
				}
			}
		})
	}
}
