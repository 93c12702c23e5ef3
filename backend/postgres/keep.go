package postgres

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// keptPrefix begins the comment of a table a sweep kept for a promotion
// (COMMENT ON TABLE): "fusiontune kept corpus=<sha256 of the corpus
// file>". A table the promoted function reads has no such comment and is
// never dropped by the kind.
const keptPrefix = "fusiontune kept corpus="

// corpusDigest is the sha256 of the corpus file at path.
func corpusDigest(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("postgres: corpus: %w", err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("postgres: corpus: %w", err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// tableComment is table's comment, "" when it has none.
func tableComment(ctx context.Context, pool *pgxpool.Pool, table string) (string, error) {
	var c *string
	if err := pool.QueryRow(ctx, "SELECT obj_description(to_regclass($1), 'pg_class')", table).Scan(&c); err != nil {
		return "", fmt.Errorf("postgres: %s: %w", table, err)
	}
	if c == nil {
		return "", nil
	}
	return *c, nil
}

// keep marks table as kept for a promotion of the sweep that built it
// from the corpus c names: the promotion then reads the very table (and
// HNSW index) the sweep verified instead of building another, whose
// approximate neighbours may differ.
func keep(ctx context.Context, pool *pgxpool.Pool, table string, c Config) error {
	d, err := corpusDigest(c.Corpus)
	if err != nil {
		return err
	}
	if _, err := pool.Exec(ctx, fmt.Sprintf("COMMENT ON TABLE %s IS '%s%s'", table, keptPrefix, d)); err != nil {
		return fmt.Errorf("postgres: keep %s: %w", table, err)
	}
	return nil
}

// stale reports whether table, kept by a sweep, was built from a corpus
// file other than the one c names now (its content changed since).
func stale(ctx context.Context, pool *pgxpool.Pool, table string, c Config) (bool, error) {
	comment, err := tableComment(ctx, pool, table)
	if err != nil || !strings.HasPrefix(comment, keptPrefix) {
		return false, err
	}
	d, err := corpusDigest(c.Corpus)
	if err != nil {
		return false, err
	}
	return strings.TrimPrefix(comment, keptPrefix) != d, nil
}

// adopt makes table the production table (no kept comment: the kind
// never drops it) and drops every other table of the kind's prefix that a
// sweep kept, returning their names.
func adopt(ctx context.Context, pool *pgxpool.Pool, prefix, table string) ([]string, error) {
	if _, err := pool.Exec(ctx, fmt.Sprintf("COMMENT ON TABLE %s IS NULL", table)); err != nil {
		return nil, fmt.Errorf("postgres: %s: %w", table, err)
	}
	rows, err := pool.Query(ctx, `SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
  WHERE c.relkind = 'r' AND n.nspname = current_schema() AND starts_with(c.relname, $1) AND c.relname <> $2
    AND starts_with(coalesce(obj_description(c.oid, 'pg_class'), ''), $3) ORDER BY 1`, prefix+"_", table, keptPrefix)
	if err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	kept, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	var errs []error
	for _, t := range kept {
		if _, err := pool.Exec(ctx, "DROP TABLE IF EXISTS "+t); err != nil {
			errs = append(errs, fmt.Errorf("postgres: drop %s: %w", t, err))
		}
	}
	return kept, errors.Join(errs...)
}
