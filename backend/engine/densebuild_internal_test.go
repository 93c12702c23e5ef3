package engine

import (
	"context"
	"testing"
)

// TestFitsCorpus: the dense build fits on the corpus (and so waits for
// bm25's) only for an embedder that learns from it and has no cached model.
func TestFitsCorpus(t *testing.T) {
	tests := []struct {
		model       string
		before, out bool // before the first build; after it, on its cache
	}{
		{"lsa-8", true, false},
		{"hash-64", false, false},
	}
	for _, tt := range tests {
		t.Run(tt.model, func(t *testing.T) {
			c, err := LoadConfig("testdata/tiny.yaml")
			if err != nil {
				t.Fatal(err)
			}
			c.CacheDir = t.TempDir()
			c.Retrievers = []string{BM25, Dense}
			c.Dense.Model = tt.model
			e, err := New(c, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if got := e.fitsCorpus(); got != tt.before {
				t.Errorf("before the first build: fitsCorpus = %v, want %v", got, tt.before)
			}
			if err := e.Build(context.Background()); err != nil {
				t.Fatal(err)
			}
			e.Close()
			if got := e.fitsCorpus(); got != tt.out {
				t.Errorf("on the cache: fitsCorpus = %v, want %v", got, tt.out)
			}
		})
	}
}
