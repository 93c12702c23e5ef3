package postgres

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strconv"
	"sync"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/backend/fusion"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"gopkg.in/yaml.v3"
)

// Kind is the setting backend.kind of this kind.
const Kind = "postgres"

// DefaultPrefix names the kind's tables (<prefix>_<group>).
const DefaultPrefix = "fusiontune"

// DefaultEFSearch is Options.EFSearch's default: MaxDepth.
const DefaultEFSearch = MaxDepth

// DefaultFunction is the promoted SQL function's name.
const DefaultFunction = "hybrid_search"

// Options configure the kind.
type Options struct {
	// URL is the database, postgres://user@host:port/db?sslmode=...,
	// without a password.
	URL string
	// Password, read by the caller from an environment variable, is set
	// on the connection, never logged.
	Password string
	// Base is the configuration trials overlay (DefaultConfig of the
	// dataset's corpus, with the user's settings).
	Base Config
	// EFSearch is hnsw.ef_search for every search (DefaultEFSearch when
	// 0; 40..MaxDepth): at least every trial's depth, and the same for
	// every depth, so that the nearest chunks at a small depth are the
	// first of those at a larger one (replay cuts lists collected at the
	// largest depth).
	EFSearch int
	// Prefix names the tables (DefaultPrefix when empty); Function the
	// promoted function (DefaultFunction when empty). Both: lowercase
	// letters, digits and _.
	Prefix, Function string
	// Attach, when set, tunes the query-time parameters of the user's own
	// table or SQL instead of tables the kind loads (see Attach).
	Attach *Attach
}

// Factory is the postgres kind, ready to check, describe and open.
type Factory struct {
	o    Options
	legs legs // the candidate SQL: the kind's own tables', or Attach's
}

var (
	_ backend.Factory        = (*Factory)(nil)
	_ backend.FusionResolver = (*Factory)(nil)
	_ backend.Verifier       = (*Factory)(nil)
	_ backend.Backend        = (*Backend)(nil)
	_ backend.Restarter      = (*Backend)(nil)
)

// New checks o.
func New(o Options) (*Factory, error) {
	if o.Prefix == "" {
		o.Prefix = DefaultPrefix
	}
	if o.Function == "" {
		o.Function = DefaultFunction
	}
	if o.EFSearch == 0 {
		o.EFSearch = DefaultEFSearch
	}
	if o.EFSearch < 40 || o.EFSearch > MaxDepth {
		return nil, fmt.Errorf("backend.postgres.ef_search: must be from 40 to %d (got %d)", MaxDepth, o.EFSearch)
	}
	if msg := URLProblem(o.URL); msg != "" {
		return nil, errors.New("backend.postgres.url: " + msg)
	}
	if !textConfigName(o.Prefix) {
		return nil, fmt.Errorf("backend.postgres.prefix: lowercase letters, digits and _ (got %q)", o.Prefix)
	}
	if !textConfigName(o.Function) {
		return nil, fmt.Errorf("backend.postgres.function: lowercase letters, digits and _ (got %q)", o.Function)
	}
	l := ownLegs
	if a := o.Attach; a != nil {
		if err := a.check(); err != nil {
			return nil, err
		}
		// The index is the user's: its "config" is a marker, the query
		// vectors' embedder and the text configuration of the query.
		o.Base.Corpus, o.Base.Chunk, o.Base.Dense.Model = "attach:"+a.name(), ChunkConfig{}, a.QueryVectors
		if o.Base.BM25.TextConfig = a.TextConfig; a.TextConfig == "" {
			o.Base.BM25.TextConfig = DefaultTextConfig
		}
		if a.Function != "" {
			o.Function = a.Function
		}
		l = a.legs()
	}
	if err := o.Base.Validate(); err != nil {
		return nil, fmt.Errorf("backend.postgres: %w", err)
	}
	return &Factory{o: o, legs: l}, nil
}

// URLProblem says what is wrong with the postgres kind's database URL,
// or "": it must be postgres://user@host:port/database without a password
// (which comes from the environment), and parse as the driver reads it
// (a port from 1 to 65535, known parameters). The URL is not echoed when it
// may hold a password.
func URLProblem(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		// Not echoed: the text may hold a password.
		return "want postgres://user@host:port/database (the URL does not parse; a password goes in the environment variable backend.postgres.password_env names)"
	}
	if u.Scheme != "postgres" && u.Scheme != "postgresql" {
		return fmt.Sprintf("want postgres://user@host:port/database (got %q)", redactURL(raw))
	}
	if u.User != nil {
		if _, has := u.User.Password(); has {
			return "a URL with a password: the password is read only from the environment variable backend.postgres.password_env names"
		}
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return fmt.Sprintf("port must be a number from 1 to 65535 (got %q in %q)", p, raw)
		}
	}
	if _, err := pgxpool.ParseConfig(raw); err != nil {
		if cause := errors.Unwrap(err); cause != nil {
			err = cause // the driver's error quotes the URL again
		}
		return fmt.Sprintf("want postgres://user@host:port/database (got %q: %v)", raw, err)
	}
	return ""
}

func redactURL(s string) string {
	if u, err := url.Parse(s); err == nil && u.User != nil {
		if _, has := u.User.Password(); has {
			u.User = url.UserPassword(u.User.Username(), "xxxxx")
			return u.String()
		}
	}
	return s
}

// Check validates params' config.
func (f *Factory) Check(params map[string]any) error {
	_, err := f.config(params)
	return err
}

// config is params over the base config, checked.
func (f *Factory) config(params map[string]any) (Config, error) {
	c, err := f.o.Base.WithParams(params)
	if err == nil {
		err = f.checkDepth(c)
	}
	if err == nil && f.o.Attach != nil && c.Group() != f.o.Base.Group() {
		err = fmt.Errorf("postgres: attached to %s, the kind tunes query-time parameters only (fusion.*, depth, bm25.min_score, dense.min_score): chunk.*, dense.model and bm25.text_config belong to your index", f.o.Attach.name())
	}
	return c, err
}

func (f *Factory) checkDepth(c Config) error {
	if c.Fusion.Depth > f.o.EFSearch {
		return fmt.Errorf("postgres: fusion.depth: must be at most backend.postgres.ef_search, %d (got %d): HNSW would return fewer rows", f.o.EFSearch, c.Fusion.Depth)
	}
	return nil
}

// Describe is params' config as YAML (the production file a promotion
// writes).
func (f *Factory) Describe(params map[string]any) string {
	c, err := f.config(params)
	if err != nil {
		return "render error: " + err.Error()
	}
	var b []byte
	if f.o.Attach != nil {
		b, err = yaml.Marshal(QueryParamsOf(c))
	} else {
		b, err = c.Marshal()
	}
	if err != nil {
		return "render error: " + err.Error()
	}
	return string(b)
}

// Fusion is params' query-time settings, under which the tuner's replay
// fuses the candidate lists by fusion.Postgres's rule (fusion.Fuse's, for
// the settings fusion.PostgresExpresses accepts), exactly as the hybrid
// SQL fuses.
func (f *Factory) Fusion(params map[string]any) (fusion.Settings, error) {
	c, err := f.config(params)
	if err != nil {
		return fusion.Settings{}, err
	}
	s := c.Settings()
	if err := fusion.PostgresExpresses(s); err != nil {
		return fusion.Settings{}, err
	}
	return s, nil
}

// connect opens a pool on the database and makes sure pgvector is there.
func (f *Factory) connect(ctx context.Context) (*pgxpool.Pool, error) {
	cfg, err := pgxpool.ParseConfig(f.o.URL)
	if err != nil {
		return nil, fmt.Errorf("postgres: %s: %w", redactURL(f.o.URL), err)
	}
	if f.o.Password != "" {
		cfg.ConnConfig.Password = f.o.Password
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("postgres: connect: %w", err)
	}
	if f.o.Attach != nil {
		// Read-only credentials: the extension is the user's, not created.
		var has bool
		if err := pool.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'vector')").Scan(&has); err != nil || !has {
			pool.Close()
			return nil, fmt.Errorf("postgres: attach: the database has no vector extension (pgvector): %v", err)
		}
		return pool, nil
	}
	if _, err := pool.Exec(ctx, "CREATE EXTENSION IF NOT EXISTS vector"); err != nil {
		pool.Close()
		return nil, fmt.Errorf("postgres: CREATE EXTENSION vector (is pgvector installed? see scripts/install-pgvector.sh): %w", err)
	}
	return pool, nil
}

// Open connects; tables are built by Restart.
func (f *Factory) Open(_ string, log io.Writer) (backend.Backend, error) {
	if log == nil {
		log = io.Discard
	}
	pool, err := f.connect(context.Background())
	if err != nil {
		return nil, err
	}
	return &Backend{f: f, pool: pool, log: log, created: map[string]Config{}, cfg: f.o.Base}, nil
}

// Backend is an open postgres kind: a pool, the applied config, the
// table of its group.
type Backend struct {
	f    *Factory
	pool *pgxpool.Pool
	log  io.Writer

	mu      sync.Mutex
	cfg     Config            // applied
	table   string            // the table searches read ("" before the first Restart)
	running Config            // the config the table was built for
	created map[string]Config // tables this backend created (and their configs), kept by Close
	vectors map[string]queryEmbedder
}

// queryEmbedder gives a query its vector literal.
type queryEmbedder interface {
	embed(ctx context.Context, text string) (string, error)
}

// Apply keeps params' config; Restart builds its table when needed.
func (b *Backend) Apply(_ context.Context, params map[string]any) error {
	c, err := b.f.config(params)
	if err != nil {
		return err
	}
	b.mu.Lock()
	b.cfg = c
	b.mu.Unlock()
	return nil
}

// NeedsRestart reports whether the applied config reads another table.
func (b *Backend) NeedsRestart() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.table == "" || b.cfg.Group() != b.running.Group()
}

// Restart makes sure the applied config's table exists, loading it when
// it does not.
func (b *Backend) Restart(ctx context.Context) error {
	b.mu.Lock()
	c := b.cfg
	b.mu.Unlock()
	if a := b.f.o.Attach; a != nil {
		// The user's table: nothing to load, nothing to drop.
		b.mu.Lock()
		b.table, b.running = a.name(), c
		b.mu.Unlock()
		return nil
	}
	table, made, err := ensureTable(ctx, b.pool, b.f.o.Prefix, c, b.vectorsFor(c).(*queryVectors), b.log)
	if err != nil {
		return err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if made {
		b.created[table] = c
	}
	b.table, b.running = table, c
	return nil
}

// vectorsFor returns the (lazily fitted) query embedder of c's group.
func (b *Backend) vectorsFor(c Config) queryEmbedder {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.vectors == nil {
		b.vectors = map[string]queryEmbedder{}
	}
	g := c.Group()
	if b.vectors[g] == nil {
		b.vectors[g] = b.f.queryEmbedder(c)
	}
	return b.vectors[g]
}

// queryEmbedder is c's query embedder: the group's, fitted on its texts,
// or the attached index's QueryVectors.
func (f *Factory) queryEmbedder(c Config) queryEmbedder {
	if f.o.Attach != nil {
		return &attachedVectors{a: *f.o.Attach}
	}
	return newQueryVectors(c)
}

// Ready pings the database.
func (b *Backend) Ready(ctx context.Context) error {
	if err := b.pool.Ping(ctx); err != nil {
		return fmt.Errorf("postgres: %w", err)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.table == "" {
		return errors.New("postgres: no table loaded yet")
	}
	return nil
}

// Search runs the hybrid SQL under the running config overlaid with the
// request's fusion override; with Explain it also runs each retriever's
// candidate SQL.
func (b *Backend) Search(ctx context.Context, req backend.SearchRequest) (backend.SearchResponse, error) {
	b.mu.Lock()
	c, table, running := b.cfg, b.table, b.running
	b.mu.Unlock()
	if table == "" {
		return backend.SearchResponse{}, errors.New("postgres: no table loaded yet")
	}
	if c.Group() != running.Group() {
		return backend.SearchResponse{}, errors.New("postgres: the applied config reads another table: restart first")
	}
	c.Fusion = c.Fusion.Override(req.Fusion)
	if err := c.Validate(); err != nil {
		return backend.SearchResponse{}, err
	}
	if err := b.f.checkDepth(c); err != nil {
		return backend.SearchResponse{}, err
	}
	k := req.K
	if k <= 0 {
		k = 10
	}
	variants, err := b.variants(c, req.Variants)
	if err != nil {
		return backend.SearchResponse{}, err
	}
	vec, err := b.vectorsFor(c).embed(ctx, req.Query)
	if err != nil {
		return backend.SearchResponse{}, err
	}
	return search(ctx, b.pool, b.f.legs, table, c, req.Query, vec, k, b.f.o.EFSearch, req.Explain, variants)
}

// MaxVariants bounds the fusion variants of one request.
const MaxVariants = 64

// variants are the configs of a request's fusion variants, each over c:
// the hybrid SQL takes every fusion setting per call (method, RRF k,
// weights, depth), so a variant may change any of them.
func (b *Backend) variants(c Config, vs []fusion.Params) ([]Config, error) {
	if len(vs) > MaxVariants {
		return nil, fmt.Errorf("postgres: variants: at most %d (got %d)", MaxVariants, len(vs))
	}
	out := make([]Config, len(vs))
	for i := range vs {
		v := c
		v.Fusion = c.Fusion.Override(&vs[i])
		if err := v.Validate(); err != nil {
			return nil, fmt.Errorf("postgres: variants[%d]: %w", i, err)
		}
		if err := b.f.checkDepth(v); err != nil {
			return nil, fmt.Errorf("variants[%d]: %w", i, err)
		}
		out[i] = v
	}
	return out, nil
}

// args are the named arguments of c's SQL for one query.
func args(c Config, query, vec string, k int) pgx.NamedArgs {
	a := pgx.NamedArgs{"query": query, "vector": vec, "k": k, "depth": c.Fusion.Depth, "rrf_k": c.Fusion.K,
		"w_bm25": c.Fusion.Weight(BM25), "w_dense": c.Fusion.Weight(Dense), "floor_bm25": nil, "floor_dense": nil}
	if c.BM25.MinScore != nil {
		a["floor_bm25"] = *c.BM25.MinScore
	}
	if c.Dense.MinScore != nil {
		a["floor_dense"] = *c.Dense.MinScore
	}
	return a
}

// search runs c's hybrid SQL (and with explain its candidate SQL), then
// the hybrid SQL of each variant config, in one transaction with
// hnsw.ef_search set to ef (pgvector's default, 40, would cut LIMIT 100 to
// 40 rows).
func search(ctx context.Context, pool *pgxpool.Pool, l legs, table string, c Config, query, vec string, k, ef int, explain bool, variants []Config) (backend.SearchResponse, error) {
	var out backend.SearchResponse
	err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SELECT set_config('hnsw.ef_search', $1, true)", strconv.Itoa(ef)); err != nil {
			return err
		}
		var err error
		switch {
		case !explain && len(variants) > 0:
			return multiSearch(ctx, tx, l, table, append([]Config{c}, variants...), query, vec, k, &out)
		case !explain:
			out.Hits, err = hybrid(ctx, tx, l, table, c, query, vec, k)
		default:
			err = explainSearch(ctx, tx, l, table, c, query, vec, k, &out)
		}
		if err != nil || len(variants) == 0 {
			return err
		}
		out.Variants = make([]backend.Variant, len(variants))
		for i, v := range variants {
			hits, err := hybrid(ctx, tx, l, table, v, query, vec, k)
			if err != nil {
				return fmt.Errorf("variants[%d]: %w", i, err)
			}
			out.Variants[i] = backend.Variant{Hits: hits, Routing: fusion.Routing(len(hits))}
		}
		return nil
	})
	if err != nil {
		return backend.SearchResponse{}, fmt.Errorf("postgres: search: %w", err)
	}
	out.Routing = fusion.Routing(len(out.Hits))
	return out, nil
}

// multiSearch ranks one query under cs, a request's config and its
// variants, in one statement (legs.multi): the request's hits and each
// variant's, into out.
func multiSearch(ctx context.Context, tx pgx.Tx, l legs, table string, cs []Config, query, vec string, k int, out *backend.SearchResponse) error {
	deepest := cs[0]
	for _, c := range cs[1:] {
		if c.Fusion.Depth > deepest.Fusion.Depth {
			deepest.Fusion.Depth = c.Fusion.Depth
		}
	}
	text, own := l.multi(cs)
	a := args(deepest, query, vec, k)
	for name, v := range own {
		a[name] = v
	}
	rows, err := tx.Query(ctx, named(text, table, deepest.BM25.TextConfig), a)
	if err != nil {
		return err
	}
	ranked := make([][]backend.Hit, len(cs))
	var v, n int64
	var hit backend.Hit
	_, err = pgx.ForEachRow(rows, []any{&v, &hit.DocID, &hit.Score, &n}, func() error {
		ranked[v] = place(ranked[v], int(n), hit)
		return nil
	})
	if err != nil {
		return err
	}
	out.Hits = append([]backend.Hit{}, ranked[0]...)
	out.Variants = make([]backend.Variant, len(cs)-1)
	for i, hits := range ranked[1:] {
		hits = append([]backend.Hit{}, hits...)
		out.Variants[i] = backend.Variant{Hits: hits, Routing: fusion.Routing(len(hits))}
	}
	return nil
}

// hybrid runs c's hybrid SQL for one query: the fused hits, best first.
func hybrid(ctx context.Context, tx pgx.Tx, l legs, table string, c Config, query, vec string, k int) ([]backend.Hit, error) {
	hits := []backend.Hit{}
	rows, err := tx.Query(ctx, named(l.hybrid(c.Fusion.Method), table, c.BM25.TextConfig), args(c, query, vec, k))
	if err != nil {
		return nil, err
	}
	var hit backend.Hit
	_, err = pgx.ForEachRow(rows, []any{&hit.DocID, &hit.Score}, func() error {
		hits = append(hits, hit)
		return nil
	})
	return hits, err
}

// explainSearch runs c's candidate SQL for one query: the fused hits and
// each retriever's candidate list, into out.
func explainSearch(ctx context.Context, tx pgx.Tx, l legs, table string, c Config, query, vec string, k int, out *backend.SearchResponse) error {
	a := args(c, query, vec, k)
	out.Hits = []backend.Hit{}
	rows, err := tx.Query(ctx, named(l.explain(c.Fusion.Method), table, c.BM25.TextConfig), a)
	if err != nil {
		return err
	}
	out.Candidates = map[string][]fusion.Candidate{BM25: {}, Dense: {}}
	var list string
	var cand fusion.Candidate
	var n int64
	_, err = pgx.ForEachRow(rows, []any{&list, &cand.ID, &cand.DocID, &cand.Score, &n}, func() error {
		cand.Rank = int(n)
		if list == "" {
			out.Hits = place(out.Hits, int(n), backend.Hit{DocID: cand.DocID, Score: cand.Score})
		} else {
			out.Candidates[list] = place(out.Candidates[list], int(n), cand)
		}
		return nil
	})
	return err
}

// place puts v at the 1-based position n of s, growing it.
func place[T any](s []T, n int, v T) []T {
	for len(s) < n {
		var zero T
		s = append(s, zero)
	}
	s[n-1] = v
	return s
}

// Close keeps the tables this backend created for a promotion (see keep:
// the next promotion drops those its function does not read) and closes
// the pool.
func (b *Backend) Close() error {
	b.mu.Lock()
	tables := make(map[string]Config, len(b.created))
	for t, c := range b.created {
		tables[t] = c
	}
	b.created = map[string]Config{}
	b.mu.Unlock()
	var errs []error
	for t, c := range tables {
		if err := keep(context.Background(), b.pool, t, c); err != nil {
			errs = append(errs, err)
		} else {
			fmt.Fprintf(b.log, "postgres: kept %s for a promotion (the next promotion drops the tables it does not read)\n", t)
		}
	}
	b.pool.Close()
	return errors.Join(errs...)
}
