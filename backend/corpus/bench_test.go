package corpus_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/fusiontune/fusiontune/backend/corpus"
)

// BenchmarkLoadCorpus reads the shared SciFact corpus (5,183 abstracts,
// 8 MB; skipped without ../shared/data), whole and for its ids only.
func BenchmarkLoadCorpus(b *testing.B) {
	path := filepath.Join("..", "..", "..", "shared", "data", "scifact", "corpus.jsonl")
	if _, err := os.Stat(path); err != nil {
		b.Skip("no ../shared/data/scifact")
	}
	cfg := corpus.Config{Path: path, Format: corpus.FormatBEIR}
	for name, load := range map[string]func(corpus.Config) (*corpus.Corpus, error){"whole": corpus.Load, "ids": corpus.LoadIDs} {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				if _, err := load(cfg); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
