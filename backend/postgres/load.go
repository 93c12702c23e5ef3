package postgres

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/fusiontune/fusiontune/backend/corpus"
	"github.com/fusiontune/fusiontune/backend/embed"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// queryVectors is a group's embedder, fitted once on the group's texts.
type queryVectors struct {
	c    Config
	once sync.Once
	err  error
	emb  embed.Embedder
	// chunks and texts are the group's indexed units.
	chunks []corpus.Chunk
	texts  []string
}

func newQueryVectors(c Config) *queryVectors { return &queryVectors{c: c} }

func (q *queryVectors) load(ctx context.Context) error {
	q.once.Do(func() {
		loaded, err := corpus.Load(corpus.Config{Path: q.c.Corpus})
		if err != nil {
			q.err = fmt.Errorf("postgres: %w", err)
			return
		}
		q.chunks, q.texts, err = corpus.IndexTexts(loaded.Docs, corpus.ChunkConfig{Size: q.c.Chunk.Size, Overlap: q.c.Chunk.Overlap})
		if err != nil {
			q.err = fmt.Errorf("postgres: %w", err)
			return
		}
		q.emb, err = embed.ForQueries(context.WithoutCancel(ctx), q.c.Dense.Model, embed.Options{}, q.texts)
		if err != nil {
			q.err = fmt.Errorf("postgres: %w", err)
		}
	})
	return q.err
}

// embed returns a query's vector literal.
func (q *queryVectors) embed(ctx context.Context, text string) (string, error) {
	if err := q.load(ctx); err != nil {
		return "", err
	}
	v, err := q.emb.EmbedQuery(ctx, text)
	if err != nil {
		return "", fmt.Errorf("postgres: embed the query: %w", err)
	}
	return embed.FormatVector(v), nil
}

// TableName is the table of c's group.
func TableName(prefix string, c Config) string { return prefix + "_" + c.Group() }

// ensureTable creates and loads the table of c's group unless it exists
// (a table a sweep kept from another version of the corpus file is loaded
// again); made reports whether it was created now. The table, its rows and its
// indexes are made in one transaction: the table exists whole or not at
// all.
func ensureTable(ctx context.Context, pool *pgxpool.Pool, prefix string, c Config, q *queryVectors, log io.Writer) (table string, made bool, err error) {
	table = TableName(prefix, c)
	var exists bool
	if err := pool.QueryRow(ctx, "SELECT to_regclass($1) IS NOT NULL", table).Scan(&exists); err != nil {
		return "", false, fmt.Errorf("postgres: %w", err)
	}
	if exists {
		old, err := stale(ctx, pool, table, c)
		if err != nil {
			return "", false, err
		}
		if !old {
			return table, false, nil
		}
		if _, err := pool.Exec(ctx, "DROP TABLE "+table); err != nil {
			return "", false, fmt.Errorf("postgres: drop %s: %w", table, err)
		}
		fmt.Fprintf(log, "postgres: %s was kept from another version of %s: loading it again\n", table, c.Corpus)
	}
	began := time.Now()
	if err := q.load(ctx); err != nil {
		return "", false, err
	}
	ids := make([]string, len(q.chunks))
	for i, ch := range q.chunks {
		ids[i] = ch.ID
	}
	vecs, err := q.emb.EmbedDocuments(ctx, ids, q.texts)
	if err != nil {
		return "", false, fmt.Errorf("postgres: embed the corpus: %w", err)
	}
	embedded := time.Since(began)
	err = pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		ddl := fmt.Sprintf(`CREATE TABLE %s (
  id text PRIMARY KEY,
  doc_id text NOT NULL,
  body text NOT NULL,
  tsv tsvector GENERATED ALWAYS AS (to_tsvector('%s'::regconfig, body)) STORED,
  embedding vector(%d) NOT NULL)`, table, c.BM25.TextConfig, q.emb.Dim())
		if _, err := tx.Exec(ctx, ddl); err != nil {
			return err
		}
		pr, pw := io.Pipe()
		go func() {
			var line strings.Builder
			for i, ch := range q.chunks {
				line.Reset()
				line.WriteString(copyText(ch.ID))
				line.WriteByte('\t')
				line.WriteString(copyText(ch.DocID))
				line.WriteByte('\t')
				line.WriteString(copyText(q.texts[i]))
				line.WriteByte('\t')
				line.WriteString(embed.FormatVector(vecs[i]))
				line.WriteByte('\n')
				if _, err := io.WriteString(pw, line.String()); err != nil {
					return
				}
			}
			pw.Close()
		}()
		_, err := tx.Conn().PgConn().CopyFrom(ctx, pr, fmt.Sprintf("COPY %s (id, doc_id, body, embedding) FROM STDIN", table))
		pr.CloseWithError(err)
		if err != nil {
			return err
		}
		for _, idx := range []string{
			fmt.Sprintf("CREATE INDEX ON %s USING gin (tsv)", table),
			fmt.Sprintf("CREATE INDEX ON %s USING hnsw (embedding vector_ip_ops)", table),
		} {
			if _, err := tx.Exec(ctx, idx); err != nil {
				return err
			}
		}
		_, err = tx.Exec(ctx, fmt.Sprintf("ANALYZE %s", table))
		return err
	})
	if err != nil {
		return "", false, fmt.Errorf("postgres: load %s: %w", table, err)
	}
	fmt.Fprintf(log, "postgres: loaded %s: %d chunks, %s vectors of %d (embedding %s, loading and indexing %s)\n",
		table, len(q.chunks), q.c.Dense.Model, q.emb.Dim(), embedded.Round(time.Millisecond), (time.Since(began) - embedded).Round(time.Millisecond))
	return table, true, nil
}

// copyText escapes s for COPY's text format.
func copyText(s string) string {
	return strings.NewReplacer(`\`, `\\`, "\t", `\t`, "\n", `\n`, "\r", `\r`).Replace(s)
}
