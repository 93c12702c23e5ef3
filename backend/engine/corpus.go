package engine

import "github.com/fusiontune/fusiontune/backend/corpus"

// The corpus is read and chunked by backend/corpus. These names of it
// stay here for the engine's callers written before it (the tuner, the
// postgres kind's config); new code names corpus directly.

// CorpusConfig is corpus.Config, the corpus block of Config.
type CorpusConfig = corpus.Config

// ChunkConfig is corpus.ChunkConfig, the chunk block of Config.
type ChunkConfig = corpus.ChunkConfig

// Corpus formats accepted by CorpusConfig.Format (corpus.FormatBEIR, …).
const (
	FormatBEIR  = corpus.FormatBEIR
	FormatJSONL = corpus.FormatJSONL
	FormatDir   = corpus.FormatDir
)

// LoadCorpus is corpus.Load.
func LoadCorpus(c CorpusConfig) (*corpus.Corpus, error) { return corpus.Load(c) }

// LoadCorpusIDs is corpus.LoadIDs.
func LoadCorpusIDs(c CorpusConfig) (*corpus.Corpus, error) { return corpus.LoadIDs(c) }

// CachedCorpusIDs is corpus.CachedIDs.
func CachedCorpusIDs(c CorpusConfig, cacheDir string) (*corpus.Corpus, error) {
	return corpus.CachedIDs(c, cacheDir)
}
