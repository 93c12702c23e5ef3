package postgres

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/backend/fusion"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// FunctionSQL is the promoted function of c: NAME(query text, query_vec
// vector, k int, ...) returning (doc_id, score) best first, the hybrid SQL
// of c's method over table, every setting a parameter whose default is
// c's value. It sets hnsw.ef_search for the rest of the caller's
// transaction.
func FunctionSQL(name, table string, ef int, c Config) string {
	return functionSQL(name, table, ef, c, ownLegs)
}

// functionSQL is FunctionSQL over the candidate SQL l.
func functionSQL(name, table string, ef int, c Config, l legs) string {
	lit := func(f *float64) string {
		if f == nil {
			return "NULL"
		}
		return fmt.Sprintf("%v", *f)
	}
	body := bind(l.hybrid(c.Fusion.Method), table, c.BM25.TextConfig, func(p, typ string) string {
		if p == "vector" {
			return name + ".query_vec"
		}
		return name + "." + p
	})
	return fmt.Sprintf(`CREATE OR REPLACE FUNCTION %s(query text, query_vec vector, k int DEFAULT 10,
  depth int DEFAULT %d, rrf_k float8 DEFAULT %v, w_bm25 float8 DEFAULT %v, w_dense float8 DEFAULT %v,
  floor_bm25 float8 DEFAULT %s, floor_dense float8 DEFAULT %s)
RETURNS TABLE (doc_id text, score float8) LANGUAGE sql VOLATILE AS $fn$
SELECT set_config('hnsw.ef_search', greatest(%s.depth, %d)::text, true);
%s
$fn$`, name, c.Fusion.Depth, c.Fusion.K, c.Fusion.Weight(BM25), c.Fusion.Weight(Dense),
		lit(c.BM25.MinScore), lit(c.Dense.MinScore), name, ef, body)
}

// FunctionDef is the definition of the promoted function as the database
// prints it (pg_get_functiondef), "" when there is none: what the
// application runs, and what a rollback must restore byte for byte.
func FunctionDef(ctx context.Context, conn interface {
	QueryRow(context.Context, string, ...any) pgx.Row
}, name string) (string, error) {
	var def *string
	err := conn.QueryRow(ctx, `SELECT pg_get_functiondef(p.oid) FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
  WHERE p.proname = $1 AND n.nspname = current_schema()`, name).Scan(&def)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	return *def, nil
}

// Verify installs the production config for a promotion or a rollback:
// it makes sure the config's table exists (the one the sweep kept, whose
// HNSW index answered the trial's queries; loaded when there is none),
// (re)creates the function hybrid_search with the config's settings as its
// defaults, drops the other tables sweeps kept, then runs check against a searcher calling the
// function as an application would. A config file that does not exist
// (a rollback past the first promotion) drops the function.
func (f *Factory) Verify(config, _ string, log io.Writer, check func(context.Context, backend.Searcher) error) (func(context.Context) error, error) {
	if log == nil {
		log = io.Discard
	}
	return func(ctx context.Context) error {
		pool, err := f.connect(ctx)
		if err != nil {
			return err
		}
		defer pool.Close()
		if _, err := os.Stat(config); errors.Is(err, os.ErrNotExist) {
			return f.retire(ctx, pool, config, log)
		}
		if f.o.Attach != nil {
			return f.verifyAttached(ctx, pool, config, log, check)
		}
		c, err := ReadConfig(config)
		if err == nil {
			err = f.checkDepth(c)
		}
		if err != nil {
			return err
		}
		q := newQueryVectors(c)
		table, _, err := ensureTable(ctx, pool, f.o.Prefix, c, q, log)
		if err != nil {
			return err
		}
		if _, err := pool.Exec(ctx, FunctionSQL(f.o.Function, table, f.o.EFSearch, c)); err != nil {
			return fmt.Errorf("postgres: create function %s: %w", f.o.Function, err)
		}
		dropped, err := adopt(ctx, pool, f.o.Prefix, table)
		for _, t := range dropped {
			fmt.Fprintf(log, "postgres: dropped %s, kept by a sweep\n", t)
		}
		if err != nil {
			return err
		}
		fmt.Fprintf(log, "postgres: function %s(query, query_vec, k) now ranks by %s over %s\n", f.o.Function, c.Fusion.Method, table)
		return check(ctx, functionSearcher{pool: pool, name: f.o.Function, q: q})
	}, nil
}

// functionSearcher searches through the promoted function.
type functionSearcher struct {
	pool *pgxpool.Pool
	name string
	q    queryEmbedder
}

func (s functionSearcher) Ready(ctx context.Context) error { return s.pool.Ping(ctx) }

func (s functionSearcher) Search(ctx context.Context, req backend.SearchRequest) (backend.SearchResponse, error) {
	out := backend.SearchResponse{Hits: []backend.Hit{}}
	vec, err := s.q.embed(ctx, req.Query)
	if err != nil {
		return out, err
	}
	k := req.K
	if k <= 0 {
		k = 10
	}
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, "SELECT doc_id, score FROM "+s.name+"($1, $2::vector, $3)", req.Query, vec, k)
		if err != nil {
			return err
		}
		var h backend.Hit
		_, err = pgx.ForEachRow(rows, []any{&h.DocID, &h.Score}, func() error {
			out.Hits = append(out.Hits, h)
			return nil
		})
		return err
	})
	if err != nil {
		return out, fmt.Errorf("postgres: %s: %w", s.name, err)
	}
	out.Routing = fusion.Routing(len(out.Hits))
	return out, nil
}

// retire undoes the first promotion once its config file is gone (a
// rollback past it): it drops the function and the kind's tables the
// function read, leaving the database as it was before.
func (f *Factory) retire(ctx context.Context, pool *pgxpool.Pool, config string, log io.Writer) error {
	if f.o.Attach != nil && f.o.Attach.Function == "" {
		fmt.Fprintf(log, "postgres: %s does not exist: nothing else to undo (no function)\n", config)
		return nil
	}
	def, err := FunctionDef(ctx, pool, f.o.Function)
	if err != nil {
		return fmt.Errorf("postgres: %s: %w", f.o.Function, err)
	}
	if _, err := pool.Exec(ctx, "DROP FUNCTION IF EXISTS "+f.o.Function+"(text, vector, int, int, float8, float8, float8, float8, float8)"); err != nil {
		return fmt.Errorf("postgres: drop %s: %w", f.o.Function, err)
	}
	fmt.Fprintf(log, "postgres: %s does not exist: dropped the function %s\n", config, f.o.Function)
	if f.o.Attach != nil {
		return nil // the table is the user's
	}
	seen := map[string]bool{}
	for _, t := range regexp.MustCompile(`\b`+regexp.QuoteMeta(f.o.Prefix)+`_[0-9a-f]{16}\b`).FindAllString(def, -1) {
		if seen[t] {
			continue
		}
		seen[t] = true
		if _, err := pool.Exec(ctx, "DROP TABLE IF EXISTS "+t); err != nil {
			return fmt.Errorf("postgres: drop %s: %w", t, err)
		}
		fmt.Fprintf(log, "postgres: dropped %s, which the function read\n", t)
	}
	return nil
}

// verifyAttached installs an attach-mode parameters file: with
// Attach.Function it (re)creates that function over the user's table or
// SQL, the file's parameters its defaults; then it runs check against a
// searcher running the hybrid SQL as the application would (through the
// function when there is one).
func (f *Factory) verifyAttached(ctx context.Context, pool *pgxpool.Pool, config string, log io.Writer, check func(context.Context, backend.Searcher) error) error {
	c, err := readParams(config, f.o.Base)
	if err == nil {
		err = f.checkDepth(c)
	}
	if err != nil {
		return err
	}
	a := f.o.Attach
	q := f.queryEmbedder(c)
	if a.Function == "" {
		fmt.Fprintf(log, "postgres: %s holds the query parameters for %s (no function: your application passes them to its SQL)\n", config, a.name())
		return check(ctx, attachedSearcher{pool: pool, f: f, c: c, q: q})
	}
	if _, err := pool.Exec(ctx, functionSQL(a.Function, a.Table, f.o.EFSearch, c, f.legs)); err != nil {
		return fmt.Errorf("postgres: create function %s: %w", a.Function, err)
	}
	fmt.Fprintf(log, "postgres: function %s(query, query_vec, k) now ranks %s by %s\n", a.Function, a.name(), c.Fusion.Method)
	return check(ctx, functionSearcher{pool: pool, name: a.Function, q: q})
}

// attachedSearcher runs the hybrid SQL over the attached index with the
// parameters file's settings.
type attachedSearcher struct {
	pool *pgxpool.Pool
	f    *Factory
	c    Config
	q    queryEmbedder
}

func (s attachedSearcher) Ready(ctx context.Context) error { return s.pool.Ping(ctx) }

func (s attachedSearcher) Search(ctx context.Context, req backend.SearchRequest) (backend.SearchResponse, error) {
	vec, err := s.q.embed(ctx, req.Query)
	if err != nil {
		return backend.SearchResponse{}, err
	}
	k := req.K
	if k <= 0 {
		k = 10
	}
	return search(ctx, s.pool, s.f.legs, s.f.o.Attach.name(), s.c, req.Query, vec, k, s.f.o.EFSearch, false, nil)
}
