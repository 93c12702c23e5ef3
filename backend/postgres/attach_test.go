package postgres_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/backend/embed"
	"github.com/fusiontune/fusiontune/backend/fusion"
	"github.com/fusiontune/fusiontune/backend/postgres"
	"github.com/jackc/pgx/v5"
)

// attachedTable creates the user's table "articles" (document key, body,
// a generated tsvector, an 8-dimensional vector with a cosine HNSW index)
// loaded with testdata/attach/docs.jsonl: vectors the kind never computed.
// It returns the queries of testdata/attach/queries.jsonl (their vectors
// precomputed in the file:<path> format) and a fingerprint of the table.
func attachedTable(t *testing.T, conn *pgx.Conn) ([]string, func() string) {
	t.Helper()
	ctx := context.Background()
	for _, q := range []string{
		`CREATE TABLE articles (doc_key text PRIMARY KEY, body text NOT NULL,
		  body_tsv tsvector GENERATED ALWAYS AS (to_tsvector('english', body)) STORED, emb vector(8) NOT NULL)`,
		`CREATE INDEX ON articles USING gin (body_tsv)`,
	} {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	f, err := os.Open("testdata/attach/docs.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var d struct {
			ID, Text string
			Vector   []float32
		}
		if err := json.Unmarshal(sc.Bytes(), &d); err != nil {
			t.Fatal(err)
		}
		if _, err := conn.Exec(ctx, "INSERT INTO articles (doc_key, body, emb) VALUES ($1, $2, $3::vector)", d.ID, d.Text, embed.FormatVector(d.Vector)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := conn.Exec(ctx, "CREATE INDEX ON articles USING hnsw (emb vector_cosine_ops)"); err != nil {
		t.Fatal(err)
	}
	qf, err := os.ReadFile("testdata/attach/queries.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var queries []string
	for _, line := range strings.Split(strings.TrimSpace(string(qf)), "\n") {
		var q struct{ Query string }
		if err := json.Unmarshal([]byte(line), &q); err != nil {
			t.Fatal(err)
		}
		queries = append(queries, q.Query)
	}
	fingerprint := func() string {
		var s string
		if err := conn.QueryRow(ctx, `SELECT md5(string_agg(doc_key || body || emb::text, ',' ORDER BY doc_key)) || ' ' ||
		  (SELECT relfilenode::text || coalesce(obj_description(oid, 'pg_class'), '') FROM pg_class WHERE relname = 'articles') FROM articles`).Scan(&s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	return queries, fingerprint
}

// TestAttach attaches the kind to the user's table, by its columns with a
// read-only role and by the user's SQL per leg: for 20 queries under
// several fusion settings the fused answer PostgreSQL gives equals the
// replay of the candidate lists (fusion.Postgres); a promotion writes the
// query parameters file and, with a function, creates it over the table,
// whose answers equal the replayed ranking; rolling back removes the
// function; the table is never altered.
func TestAttach(t *testing.T) {
	url := database(t)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	queries, fingerprint := attachedTable(t, conn)
	for _, q := range []string{"CREATE ROLE reader LOGIN", "GRANT SELECT ON articles TO reader"} {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	before := fingerprint()
	vectors, err := filepath.Abs("testdata/attach/queries.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name   string
		url    string
		attach postgres.Attach
	}{
		{"columns, read-only", strings.Replace(url, "postgres://postgres@", "postgres://reader@", 1),
			postgres.Attach{Table: "articles", ID: "doc_key", TSVector: "body_tsv", Vector: "emb", QueryVectors: "file:" + vectors}},
		{"your SQL, with a function", url, postgres.Attach{
			BM25SQL: `SELECT doc_key, ts_rank_cd(body_tsv, x.q) FROM articles, (SELECT replace(plainto_tsquery('english', $1)::text, '&', '|')::tsquery AS q) x
			  WHERE body_tsv @@ x.q ORDER BY 2 DESC, 1 LIMIT $3`,
			DenseSQL:     `SELECT doc_key, -(emb <#> $2::vector) FROM articles ORDER BY emb <#> $2::vector LIMIT $3`,
			QueryVectors: "file:" + vectors, Function: "search_articles"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a := tc.attach
			f, err := postgres.New(postgres.Options{URL: tc.url, Base: postgres.DefaultConfig(""), Attach: &a})
			if err != nil {
				t.Fatal(err)
			}
			if err := f.Check(map[string]any{"chunk.size": 50}); err == nil || !strings.Contains(err.Error(), "query-time parameters only") {
				t.Errorf("an index-time parameter: %v, want a refusal", err)
			}
			b, err := f.Open(t.TempDir(), io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			trials := []map[string]any{{}, {"fusion.k": 5, "fusion.weights.bm25": 0.3}, {"fusion.method": "linear", "depth": 40}, {"dense.min_score": 0.2, "fusion.k": 20}}
			for _, params := range trials {
				if err := b.Apply(ctx, params); err != nil {
					t.Fatal(err)
				}
				if err := b.Restart(ctx); err != nil {
					t.Fatal(err)
				}
				s, err := f.Fusion(params)
				if err != nil {
					t.Fatal(err)
				}
				for _, q := range queries[:20] {
					resp, err := b.Search(ctx, backend.SearchRequest{Query: q, K: 10, Explain: true})
					if err != nil {
						t.Fatal(err)
					}
					plain, err := b.Search(ctx, backend.SearchRequest{Query: q, K: 10})
					if err != nil {
						t.Fatal(err)
					}
					replayed := replayTop(t, resp.Candidates, s, 10)
					if !reflect.DeepEqual(hitsOf(plain.Hits), replayed) || !reflect.DeepEqual(hitsOf(resp.Hits), replayed) {
						t.Fatalf("params %v query %q: PostgreSQL %v, replay %v", params, q, hitsOf(plain.Hits), replayed)
					}
				}
			}

			// Promote the second trial, then roll back past it.
			prod := filepath.Join(t.TempDir(), "search_params.yaml")
			if err := os.WriteFile(prod, []byte(f.Describe(trials[1])), 0o644); err != nil {
				t.Fatal(err)
			}
			var log strings.Builder
			install, err := f.Verify(prod, t.TempDir(), &log, func(ctx context.Context, s backend.Searcher) error {
				_, err := s.Search(ctx, backend.SearchRequest{Query: queries[0], K: 10})
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			if err := install(ctx); err != nil {
				t.Fatalf("promote: %v\n%s", err, log.String())
			}
			written, _ := os.ReadFile(prod)
			if !strings.Contains(string(written), "rrf_k: 5\n") || !strings.Contains(string(written), "w_bm25: 0.3\n") {
				t.Errorf("parameters file:\n%s", written)
			}
			if a.Function != "" {
				if err := b.Apply(ctx, trials[1]); err != nil {
					t.Fatal(err)
				}
				s, _ := f.Fusion(trials[1])
				for _, q := range queries[:20] {
					resp, err := b.Search(ctx, backend.SearchRequest{Query: q, K: 10, Explain: true})
					if err != nil {
						t.Fatal(err)
					}
					got := functionTop(t, conn, a.Function, q, vectors)
					if want := replayTop(t, resp.Candidates, s, 10); !reflect.DeepEqual(got, want) {
						t.Fatalf("query %q: %s gives %v, replay %v", q, a.Function, got, want)
					}
				}
			}
			if err := os.Remove(prod); err != nil {
				t.Fatal(err)
			}
			if err := install(ctx); err != nil {
				t.Fatalf("rollback: %v", err)
			}
			if a.Function != "" {
				if def, err := postgres.FunctionDef(ctx, conn, a.Function); err != nil || def != "" {
					t.Errorf("the function is left after the rollback: %v %s", err, def)
				}
			}
			if err := b.Close(); err != nil {
				t.Fatal(err)
			}
			if now := fingerprint(); now != before {
				t.Errorf("the user's table changed: %s, was %s", now, before)
			}
		})
	}
}

// hit is a ranked document and its score.
type hit struct {
	doc   string
	score float64
}

func hitsOf(hs []backend.Hit) []hit {
	out := []hit{}
	for _, h := range hs {
		out = append(out, hit{h.DocID, h.Score})
	}
	return out
}

// replayTop is fusion.Postgres over the candidate lists, its first k.
func replayTop(t *testing.T, lists map[string][]fusion.Candidate, s fusion.Settings, k int) []hit {
	t.Helper()
	rs, err := fusion.Postgres(lists, s)
	if err != nil {
		t.Fatal(err)
	}
	out := []hit{}
	for _, r := range rs[:min(k, len(rs))] {
		out = append(out, hit{r.DocID, r.Score})
	}
	return out
}

// functionTop calls the promoted function as an application would, with
// the query's precomputed vector.
func functionTop(t *testing.T, conn *pgx.Conn, name, query, vectors string) []hit {
	t.Helper()
	ctx := context.Background()
	e, err := embed.LoadFile(vectors)
	if err != nil {
		t.Fatal(err)
	}
	v, err := e.EmbedQuery(ctx, query)
	if err != nil {
		t.Fatal(err)
	}
	out := []hit{}
	err = pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, "SELECT doc_id, score FROM "+name+"($1, $2::vector, 10)", query, embed.FormatVector(v))
		if err != nil {
			return err
		}
		var h hit
		_, err = pgx.ForEachRow(rows, []any{&h.doc, &h.score}, func() error { out = append(out, h); return nil })
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
