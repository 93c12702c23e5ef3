package engine_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/backend/engine"
)

// TestConfigParam: every parameter WithParams sets reads back through
// Param as it was set, and a parameter left unset reads as the default
// config's value (the value a trial that leaves it unset runs on).
func TestConfigParam(t *testing.T) {
	set := map[string]any{
		"fusion.method": "linear", "fusion.k": 20.0, "fusion.normalization": "z_score", "depth": 40.0, "fusion.depth": 40.0,
		"min_score": 0.25, "bm25.min_score": 1.5, "dense.min_score": 0.2, "passage": true, "retrievers": []string{"bm25", "dense"},
		"chunk.size": 128.0, "chunk.overlap": 16.0, "dense.model": "lsa-64", "bm25.k1": 1.2, "bm25.b": 0.75,
		"fusion.weights.bm25": 0.3, "fusion.weights.dense": 0.7,
		"rerank.enabled": true, "rerank.window": 7.0, "rerank.weight": 0.25,
	}
	for _, name := range engine.ParamNames() {
		if name == backend.WeightPattern {
			continue
		}
		if _, ok := set[name]; !ok {
			t.Errorf("no test value for %s", name)
		}
	}
	base := engine.DefaultConfig()
	base.Corpus.Path = "/tmp/corpus.jsonl"
	reranking := base
	reranking.Rerank = &engine.RerankConfig{URL: "http://127.0.0.1:1/rerank"}
	for name, v := range set {
		base := base
		if strings.HasPrefix(name, "rerank.") {
			base = reranking
		}
		params := map[string]any{name: v}
		if name == "chunk.overlap" {
			params["chunk.size"] = 128.0
		}
		c, err := base.WithParams(params)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got, ok := c.Param(name); !ok || !reflect.DeepEqual(got, v) {
			t.Errorf("Param(%s) after setting %v = %#v, %v", name, v, got, ok)
		}
	}
	defaults := map[string]any{
		"fusion.method": "rrf", "fusion.k": 60.0, "fusion.normalization": "min_max", "depth": 100.0, "passage": false,
		"retrievers": []string{"bm25", "dense"}, "chunk.size": 0.0, "chunk.overlap": 0.0, "dense.model": "lsa-256",
		"bm25.k1": 0.9, "bm25.b": 0.4, "fusion.weights.bm25": 1.0, "fusion.weights.dense": 1.0, "rerank.enabled": false,
	}
	for name, want := range defaults {
		if got, ok := base.Param(name); !ok || !reflect.DeepEqual(got, want) {
			t.Errorf("default Param(%s) = %#v, %v, want %#v", name, got, ok, want)
		}
	}
	for _, name := range []string{"min_score", "bm25.min_score", "dense.min_score", "fusion.weights.colbert", "nope", "custom.boost", "rerank.window", "rerank.weight"} {
		if got, ok := base.Param(name); ok {
			t.Errorf("default Param(%s) = %#v, want none", name, got)
		}
	}
	bm25, err := base.WithParams(map[string]any{"retrievers": []string{"bm25"}})
	if err != nil {
		t.Fatal(err)
	}
	if got, ok := bm25.Param("fusion.weights.dense"); ok || strings.Contains(strings.Join(bm25.Retrievers, ","), "dense") {
		t.Errorf("BM25 alone has a dense weight %v", got)
	}
}
