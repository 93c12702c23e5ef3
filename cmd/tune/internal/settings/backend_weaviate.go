package settings

import (
	"fmt"
	"path/filepath"

	"github.com/fusiontune/fusiontune/backend/corpus"
	"github.com/fusiontune/fusiontune/backend/weaviate"
)

// KindWeaviate is backend.kind for Weaviate.
const KindWeaviate = weaviate.Kind

// Weaviate (backend.weaviate) configures the weaviate kind.
type Weaviate struct {
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
	// Class attaches the kind to an existing class of URL, read-only;
	// IDProperty is its document-id property (default doc_id) and
	// QueryVectors the embedder of its query vectors ("" for the class's
	// vectorizer).
	Class        string `mapstructure:"class"`
	IDProperty   string `mapstructure:"id_property"`
	QueryVectors string `mapstructure:"query_vectors"`
	// BaseURL and APIKeyEnv serve openai:<model>.
	BaseURL   string `mapstructure:"base_url"`
	APIKeyEnv string `mapstructure:"api_key_env"`
}

// weaviateProblems lists what is wrong with a weaviate backend block.
func (b Backend) weaviateProblems(add func(field, format string, args ...any)) {
	b.refuseServiceKeys(add, "not for backend.kind weaviate (it queries Weaviate's GraphQL API itself)")
	w := b.Weaviate
	if (w.Bin == "") == (w.URL == "") {
		add("weaviate", "give exactly one of bin (a weaviate-server the kind starts) and url (a running server)")
	}
	switch {
	case w.Class != "" && w.URL == "":
		add("weaviate.class", "attach mode needs url (the server holding the class), not bin")
	case w.Class != "" && w.Model != "":
		add("weaviate.model", "not with class: the class holds its own vectors (query_vectors makes the query vectors)")
	case w.Class == "" && w.Model == "":
		add("weaviate.model", "required: the embedder of documents and queries, e.g. lsa-256 (or class: attach to an existing class)")
	case w.Class == "" && (w.IDProperty != "" || w.QueryVectors != ""):
		add("weaviate.class", "id_property and query_vectors are for attach mode: set class")
	}
	if w.MaxResults < 0 || w.MaxResults > weaviate.MaxMaxResults {
		add("weaviate.max_results", "want 0 to %d (got %d)", weaviate.MaxMaxResults, w.MaxResults)
	}
	if w.IndexType != "" && w.IndexType != "hnsw" && w.IndexType != "flat" {
		add("weaviate.index_type", "want hnsw or flat (got %q)", w.IndexType)
	}
	if w.URL != "" {
		if msg := weaviate.URLProblem(w.URL); msg != "" {
			add("weaviate.url", "%s", msg)
		}
	}
	if msg := weaviate.ClassPrefixProblem(w.ClassPrefix); msg != "" {
		add("weaviate.class_prefix", "%s", msg)
	}
}

// weaviateOptions builds the weaviate kind's options; corpusPath is the
// dataset's corpus, used when backend.weaviate.corpus is unset ("" for
// promote and rollback, which read it from the production config). An
// embedding API key is read from the environment and handed to secret.
func (b Backend) weaviateOptions(corpusPath string, secret func(...string)) (weaviate.Options, error) {
	w := b.Weaviate
	if w.Corpus != "" {
		corpusPath = w.Corpus
	}
	abs := "-" // promote and rollback read the corpusPath from the production config
	if corpusPath != "" {
		var err error
		if abs, err = filepath.Abs(corpusPath); err != nil {
			return weaviate.Options{}, fmt.Errorf("backend.weaviate.corpusPath: %w", err)
		}
	}
	spec := w.Model
	if w.Class != "" {
		spec = w.QueryVectors // attach mode embeds queries only
	}
	opts := embedOptions(spec, w.BaseURL, w.APIKeyEnv, secret)
	return weaviate.Options{
		Bin: w.Bin, URL: w.URL, MaxResults: w.MaxResults, Model: w.Model, Embed: opts,
		Corpus: corpus.Config{Path: abs}, IndexType: w.IndexType, ClassPrefix: w.ClassPrefix,
		StartTimeout: b.StartTimeout, Settle: b.Settle,
		Class: w.Class, IDProperty: w.IDProperty, QueryVectors: w.QueryVectors,
	}, nil
}

// refuseServiceKeys adds why for each key of the embedded, process and
// http kinds that is set (engine, command, restart, template, health_url,
// search): a kind that queries its engine itself takes none of them.
func (b Backend) refuseServiceKeys(add func(field, format string, args ...any), why string) {
	for _, f := range []struct {
		field string
		set   bool
	}{
		{"engine", len(b.Engine) > 0}, {"command", len(b.Command) > 0}, {"restart", len(b.Restart) > 0},
		{"template", b.Template != ""}, {"health_url", b.HealthURL != ""}, {"search", b.Search.URL != ""},
	} {
		if f.set {
			add(f.field, "%s", why)
		}
	}
}
