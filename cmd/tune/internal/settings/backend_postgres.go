package settings

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/fusiontune/fusiontune/backend/corpus"
	"github.com/fusiontune/fusiontune/backend/embed"
	"github.com/fusiontune/fusiontune/backend/engine"
	"github.com/fusiontune/fusiontune/backend/httpbackend"
	"github.com/fusiontune/fusiontune/backend/postgres"
)

// KindPostgres is backend.kind for PostgreSQL + pgvector.
const KindPostgres = postgres.Kind

// Postgres (backend.postgres) configures the postgres kind: where the
// database is and what the tables it loads hold.
type Postgres struct {
	// URL is postgres://user@host:port/database?sslmode=..., without a
	// password.
	URL string `mapstructure:"url"`
	// PasswordEnv names the environment variable holding the password
	// (default PGPASSWORD; unset or empty: none).
	PasswordEnv string `mapstructure:"password_env"`
	// Corpus is the corpus loaded into the tables (default: the dataset's).
	Corpus string `mapstructure:"corpus"`
	// Model, TextConfig, ChunkSize and ChunkOverlap are the index-time
	// defaults trials overlay (dense.model, bm25.text_config, chunk.*).
	Model        string `mapstructure:"model"`
	TextConfig   string `mapstructure:"text_config"`
	ChunkSize    int    `mapstructure:"chunk_size"`
	ChunkOverlap int    `mapstructure:"chunk_overlap"`
	// EFSearch is hnsw.ef_search (40..1000, default 1000).
	EFSearch int `mapstructure:"ef_search"`
	// Prefix names the tables, Function the promoted SQL function.
	Prefix   string `mapstructure:"prefix"`
	Function string `mapstructure:"function"`
	// Attach (backend.postgres.attach) points the kind at the user's own
	// table or SQL instead of tables it loads (postgres.Attach).
	Attach PostgresAttach `mapstructure:"attach"`
}

// PostgresAttach (backend.postgres.attach) is the user's table or SQL the
// postgres kind tunes in place: query-time parameters only.
type PostgresAttach struct {
	Table        string `mapstructure:"table"`
	ID           string `mapstructure:"id"`
	Text         string `mapstructure:"text"`
	TSVector     string `mapstructure:"tsvector"`
	Vector       string `mapstructure:"vector"`
	TextConfig   string `mapstructure:"text_config"`
	BM25SQL      string `mapstructure:"bm25_sql"`
	DenseSQL     string `mapstructure:"dense_sql"`
	QueryVectors string `mapstructure:"query_vectors"`
	BaseURL      string `mapstructure:"base_url"`
	APIKeyEnv    string `mapstructure:"api_key_env"`
	Function     string `mapstructure:"function"`
}

// set reports whether the attach block names an index.
func (a PostgresAttach) set() bool { return a.Table != "" || a.BM25SQL != "" || a.DenseSQL != "" }

// options is the kind's Attach; a file:<path> of query vectors is made
// absolute, an openai:<model>'s key read from the environment.
func (a PostgresAttach) options(secret func(...string)) (*postgres.Attach, error) {
	qv := a.QueryVectors
	if path, ok := strings.CutPrefix(qv, "file:"); ok && path != "" {
		abs, err := filepath.Abs(path)
		if err != nil {
			return nil, fmt.Errorf("backend.postgres.attach.query_vectors: %w", err)
		}
		qv = "file:" + abs
	}
	return &postgres.Attach{Table: a.Table, ID: a.ID, Text: a.Text, TSVector: a.TSVector, Vector: a.Vector, TextConfig: a.TextConfig,
		BM25SQL: a.BM25SQL, DenseSQL: a.DenseSQL, QueryVectors: qv, Function: a.Function,
		VectorOptions: embedOptions(qv, a.BaseURL, a.APIKeyEnv, secret)}, nil
}

// Vectors (backend.vectors) name the embedder that gives the process and
// http kinds' request templates the query's vector (.vector): the one the
// service's documents were loaded with.
type Vectors struct {
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

// postgresProblems lists what is wrong with a postgres backend block.
func (b Backend) postgresProblems(add func(field, format string, args ...any)) {
	if b.Postgres.URL == "" {
		add("postgres.url", "required: postgres://user@host:port/database (the password comes from backend.postgres.password_env)")
	} else if msg := postgres.URLProblem(b.Postgres.URL); msg != "" {
		add("postgres.url", "%s", msg)
	}
	for _, f := range []struct {
		field string
		set   bool
	}{{"command", len(b.Command) > 0}, {"engine", len(b.Engine) > 0}, {"health_url", b.HealthURL != ""},
		{"restart", len(b.Restart) > 0}, {"template", b.Template != ""}} {
		if f.set {
			add(f.field, "not for backend.kind postgres")
		}
	}
}

// postgresOptions builds the postgres kind's options; corpus is the
// dataset's. The password is read from the environment and handed to
// secret for redaction.
func (b Backend) postgresOptions(corpus string, secret func(...string)) (postgres.Options, error) {
	p := b.Postgres
	if p.Corpus != "" {
		corpus = p.Corpus
	}
	if corpus != "" {
		abs, err := filepath.Abs(corpus)
		if err != nil {
			return postgres.Options{}, err
		}
		corpus = abs
	}
	env := p.PasswordEnv
	if env == "" {
		env = "PGPASSWORD"
	}
	password := os.Getenv(env)
	if secret != nil {
		secret(password)
	}
	base := postgres.DefaultConfig(corpus)
	if p.Model != "" {
		base.Dense.Model = p.Model
	}
	if p.TextConfig != "" {
		base.BM25.TextConfig = p.TextConfig
	}
	base.Chunk = postgres.ChunkConfig{Size: p.ChunkSize, Overlap: p.ChunkOverlap}
	if corpus == "" {
		// promote and rollback read the corpus from the production config.
		base.Corpus = "-"
	}
	o := postgres.Options{URL: p.URL, Password: password, Base: base, EFSearch: p.EFSearch, Prefix: p.Prefix, Function: p.Function}
	if p.Attach.set() {
		a, err := p.Attach.options(secret)
		if err != nil {
			return o, err
		}
		o.Attach = a
	}
	return o, nil
}

// queryVectors fills search.QueryVector from backend.vectors; corpusPath is the
// dataset's corpus, used when backend.vectors.corpus is unset.
func (v Vectors) queryVectors(corpusPath string, secret func(...string), search *httpbackend.SearchOptions) error {
	if v.Model == "" {
		return nil
	}
	if v.Corpus != "" {
		corpusPath = v.Corpus
	}
	if corpusPath == "" && strings.HasPrefix(v.Model, "lsa-") {
		return fmt.Errorf("backend.vectors.corpusPath: required for %s (the model is fitted on the corpusPath the documents came from)", v.Model)
	}
	if corpusPath != "" {
		abs, err := filepath.Abs(corpusPath)
		if err != nil {
			return fmt.Errorf("backend.vectors.corpusPath: %w", err)
		}
		corpusPath = abs
	}
	opts := embedOptions(v.Model, v.BaseURL, v.APIKeyEnv, secret)
	f, err := engine.QueryVectors(corpus.Config{Path: corpusPath}, corpus.ChunkConfig{Size: v.ChunkSize, Overlap: v.ChunkOverlap}, v.Model, opts)
	if err != nil {
		return fmt.Errorf("backend.vectors.model: %w", err)
	}
	search.QueryVector = f
	return nil
}

// embedOptions are an embedder's options for model: an openai:<model>'s
// API key is read from the environment variable apiKeyEnv names (default
// embed.DefaultAPIKeyEnv) and handed to secret for redaction.
func embedOptions(model, baseURL, apiKeyEnv string, secret func(...string)) embed.Options {
	opts := embed.Options{BaseURL: baseURL}
	if strings.HasPrefix(model, "openai:") {
		env := apiKeyEnv
		if env == "" {
			env = embed.DefaultAPIKeyEnv
		}
		opts.APIKey = os.Getenv(env)
		if secret != nil {
			secret(opts.APIKey)
		}
	}
	return opts
}
