package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/backend/embed"
	"github.com/fusiontune/fusiontune/backend/engine"
	"github.com/fusiontune/fusiontune/backend/weaviate"
)

// kindWeaviate is the weaviate backend kind (backend.kind: weaviate).
const kindWeaviate = "weaviate"

// weaviateSettings (backend.weaviate) configure the weaviate kind.
type weaviateSettings struct {
	// Bin is a weaviate-server the kind starts itself (and restarts to
	// change the depth); URL a running server instead. Exactly one.
	Bin string `mapstructure:"bin"`
	URL string `mapstructure:"url"`
	// MaxResults is the running server's QUERY_HYBRID_MAXIMUM_RESULTS (url
	// only; default 100).
	MaxResults int `mapstructure:"max_results"`
	// Model embeds documents and queries (lsa-<dim>, hash-<dim>,
	// openai:<model>, file:<path>) unless a trial sets dense.model.
	Model string `mapstructure:"model"`
	// Corpus is the corpus to load (default: the dataset's corpus).
	Corpus string `mapstructure:"corpus"`
	// IndexType is hnsw (default) or flat.
	IndexType string `mapstructure:"index_type"`
	// ClassPrefix starts the classes' names (default Fusiontune).
	ClassPrefix string `mapstructure:"class_prefix"`
	// BaseURL and APIKeyEnv serve openai:<model>.
	BaseURL   string `mapstructure:"base_url"`
	APIKeyEnv string `mapstructure:"api_key_env"`
}

// weaviateFactory builds the weaviate kind; corpus is the dataset's corpus,
// used when backend.weaviate.corpus is unset.
func (a *app) weaviateFactory(s *settings, corpus string) (backend.Factory, error) {
	w := s.Backend.Weaviate
	if w.Corpus != "" {
		corpus = w.Corpus
	}
	if corpus == "" {
		return nil, fmt.Errorf("backend.weaviate.corpus: required (the corpus the kind loads)")
	}
	abs, err := filepath.Abs(corpus)
	if err != nil {
		return nil, fmt.Errorf("backend.weaviate.corpus: %w", err)
	}
	opts := embed.Options{BaseURL: w.BaseURL}
	if strings.HasPrefix(w.Model, "openai:") {
		env := w.APIKeyEnv
		if env == "" {
			env = embed.DefaultAPIKeyEnv
		}
		opts.APIKey = os.Getenv(env)
		a.secrets.Add(opts.APIKey)
	}
	f, err := weaviate.New(weaviate.Options{
		Bin: w.Bin, URL: w.URL, MaxResults: w.MaxResults, Model: w.Model, Embed: opts,
		Corpus: engine.CorpusConfig{Path: abs}, IndexType: w.IndexType, ClassPrefix: w.ClassPrefix,
		StartTimeout: s.Backend.StartTimeout,
	})
	if err != nil {
		return nil, fmt.Errorf("backend.%w", err)
	}
	return f, nil
}

// weaviateProblems lists what is wrong with a weaviate backend block.
func (b backendSettings) weaviateProblems() []string {
	var out []string
	add := func(field, format string, args ...any) {
		out = append(out, "backend."+field+": "+fmt.Sprintf(format, args...))
	}
	for _, f := range []struct {
		field string
		set   bool
	}{
		{"engine", len(b.Engine) > 0}, {"command", len(b.Command) > 0}, {"restart", len(b.Restart) > 0},
		{"template", b.Template != ""}, {"health_url", b.HealthURL != ""}, {"search", b.Search.URL != ""},
	} {
		if f.set {
			add(f.field, "not for backend.kind weaviate (it queries Weaviate's GraphQL API itself)")
		}
	}
	w := b.Weaviate
	if (w.Bin == "") == (w.URL == "") {
		add("weaviate", "give exactly one of bin (a weaviate-server the kind starts) and url (a running server)")
	}
	if w.Model == "" {
		add("weaviate.model", "required: the embedder of documents and queries, e.g. lsa-256")
	}
	if w.MaxResults < 0 || w.MaxResults > weaviate.MaxMaxResults {
		add("weaviate.max_results", "want 0 to %d (got %d)", weaviate.MaxMaxResults, w.MaxResults)
	}
	if w.IndexType != "" && w.IndexType != "hnsw" && w.IndexType != "flat" {
		add("weaviate.index_type", "want hnsw or flat (got %q)", w.IndexType)
	}
	return out
}
