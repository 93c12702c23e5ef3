package engine_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/fusiontune/fusiontune/backend/engine"
)

// BenchmarkLoadCorpus reads the shared SciFact corpus (5,183 abstracts,
// 8 MB; skipped without ../shared/data), whole and for its ids only.
func BenchmarkLoadCorpus(b *testing.B) {
	path := filepath.Join("..", "..", "..", "shared", "data", "scifact", "corpus.jsonl")
	if _, err := os.Stat(path); err != nil {
		b.Skip("no ../shared/data/scifact")
	}
	cfg := engine.CorpusConfig{Path: path, Format: engine.FormatBEIR}
	for name, load := range map[string]func(engine.CorpusConfig) (*engine.Corpus, error){"whole": engine.LoadCorpus, "ids": engine.LoadCorpusIDs} {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				if _, err := load(cfg); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
