package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/backend/postgres"
)

// kindPostgres is backend.kind for PostgreSQL + pgvector.
const kindPostgres = postgres.Kind

// postgresSettings (backend.postgres) configure the postgres kind: where
// the database is and what the tables it loads hold.
type postgresSettings struct {
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
}

// postgresProblems lists what is wrong with a postgres backend block.
func (b backendSettings) postgresProblems() []string {
	var out []string
	if b.Postgres.URL == "" {
		out = append(out, "backend.postgres.url: required: postgres://user@host:port/database (the password comes from backend.postgres.password_env)")
	}
	for field, set := range map[string]bool{"command": len(b.Command) > 0, "restart": len(b.Restart) > 0, "template": b.Template != "",
		"health_url": b.HealthURL != "", "engine": len(b.Engine) > 0} {
		if set {
			out = append(out, fmt.Sprintf("backend.%s: not for backend.kind postgres", field))
		}
	}
	return out
}

// postgresFactory builds the postgres kind; corpus is the dataset's.
func (a *app) postgresFactory(s *settings, corpus string) (backend.Factory, error) {
	p := s.Backend.Postgres
	if p.Corpus != "" {
		corpus = p.Corpus
	}
	if corpus != "" {
		abs, err := filepath.Abs(corpus)
		if err != nil {
			return nil, err
		}
		corpus = abs
	}
	env := p.PasswordEnv
	if env == "" {
		env = "PGPASSWORD"
	}
	password := os.Getenv(env)
	a.secrets.Add(password)
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
	return postgres.New(postgres.Options{URL: p.URL, Password: password, Base: base, EFSearch: p.EFSearch, Prefix: p.Prefix, Function: p.Function})
}
