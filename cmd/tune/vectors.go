package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/fusiontune/fusiontune/backend/embed"
	"github.com/fusiontune/fusiontune/backend/engine"
	"github.com/fusiontune/fusiontune/backend/httpbackend"
)

// vectorSettings (backend.vectors) name the embedder that gives the
// process and http kinds' request templates the query's vector (.vector):
// the one the service's documents were loaded with.
type vectorSettings struct {
	// Model is lsa-<dim>, hash-<dim>, openai:<model> or file:<path>; ""
	// gives templates no .vector.
	Model string `mapstructure:"model"`
	// Corpus is the corpus the documents came from (an lsa model is fitted
	// on it); default: the dataset's corpus.
	Corpus string `mapstructure:"corpus"`
	// ChunkSize and ChunkOverlap cut the corpus as it was loaded (0: whole
	// documents).
	ChunkSize    int `mapstructure:"chunk_size"`
	ChunkOverlap int `mapstructure:"chunk_overlap"`
	// BaseURL and APIKeyEnv serve openai:<model>.
	BaseURL   string `mapstructure:"base_url"`
	APIKeyEnv string `mapstructure:"api_key_env"`
}

// queryVectors fills search.QueryVector from backend.vectors; corpus is the
// dataset's corpus, used when backend.vectors.corpus is unset.
func (a *app) queryVectors(v vectorSettings, corpus string, search *httpbackend.SearchOptions) error {
	if v.Model == "" {
		return nil
	}
	if v.Corpus != "" {
		corpus = v.Corpus
	}
	if corpus == "" && strings.HasPrefix(v.Model, "lsa-") {
		return fmt.Errorf("backend.vectors.corpus: required for %s (the model is fitted on the corpus the documents came from)", v.Model)
	}
	if corpus != "" {
		abs, err := filepath.Abs(corpus)
		if err != nil {
			return fmt.Errorf("backend.vectors.corpus: %w", err)
		}
		corpus = abs
	}
	opts := embed.Options{BaseURL: v.BaseURL}
	if strings.HasPrefix(v.Model, "openai:") {
		env := v.APIKeyEnv
		if env == "" {
			env = embed.DefaultAPIKeyEnv
		}
		opts.APIKey = os.Getenv(env)
		a.secrets.Add(opts.APIKey)
	}
	f, err := engine.QueryVectors(engine.CorpusConfig{Path: corpus}, engine.ChunkConfig{Size: v.ChunkSize, Overlap: v.ChunkOverlap}, v.Model, opts)
	if err != nil {
		return fmt.Errorf("backend.vectors.model: %w", err)
	}
	search.QueryVector = f
	return nil
}
