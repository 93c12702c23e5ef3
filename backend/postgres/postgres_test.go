package postgres_test

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/backend/backendtest"
	"github.com/fusiontune/fusiontune/backend/fusion"
	"github.com/fusiontune/fusiontune/backend/postgres"
	"github.com/jackc/pgx/v5"
)

// TestHybridSQLIsFusionPostgres runs the shipped hybrid SQL on a real
// database for 60 queries under several fusion settings and checks that
// fusion.Postgres over the candidate SQL's lists gives the same documents
// in the same order with the same scores (bit for bit), that HybridSQL
// (a search without explain) returns those hits too, and that the
// dense candidate list is as long as the depth (the hnsw.ef_search trap).
func TestHybridSQLIsFusionPostgres(t *testing.T) {
	url := database(t)
	corpus, queries := syntheticCorpus(t, 300, 60)
	f := factory(t, url, corpus)
	ctx := context.Background()
	b := opened(t, f)
	for _, tc := range []struct {
		name   string
		params map[string]any
	}{
		{"rrf default", map[string]any{}},
		{"rrf k 5 weighted depth 100", map[string]any{"fusion.k": 5, "fusion.weights.bm25": 0.3, "fusion.weights.dense": 1.7, "depth": 100}},
		{"rrf dense off", map[string]any{"fusion.weights.dense": 0}},
		{"rrf floors", map[string]any{"bm25.min_score": 0.1, "dense.min_score": 0.5, "depth": 80}},
		{"linear min-max", map[string]any{"fusion.method": "linear", "fusion.weights.bm25": 0.25, "depth": 100}},
		{"linear floors depth 30", map[string]any{"fusion.method": "linear", "dense.min_score": 0.3, "depth": 30}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := b.Apply(ctx, tc.params); err != nil {
				t.Fatal(err)
			}
			settings, err := f.Fusion(tc.params)
			if err != nil {
				t.Fatal(err)
			}
			compared := 0
			for _, q := range queries {
				resp, err := b.Search(ctx, backend.SearchRequest{Query: q, K: 1000, Explain: true})
				if err != nil {
					t.Fatal(err)
				}
				if n, depth := len(resp.Candidates[postgres.Dense]), settings.Fusion.Depth; n != depth {
					t.Fatalf("query %q: %d dense candidates, want the depth %d", q, n, depth)
				}
				plain, err := b.Search(ctx, backend.SearchRequest{Query: q, K: 1000})
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(plain.Hits, resp.Hits) {
					t.Fatalf("query %q: HybridSQL's hits differ from ExplainSQL's:\n%v\n%v", q, plain.Hits, resp.Hits)
				}
				want, err := fusion.Postgres(resp.Candidates, settings)
				if err != nil {
					t.Fatal(err)
				}
				if len(want) != len(resp.Hits) {
					t.Fatalf("query %q: SQL gave %d hits, fusion.Postgres %d", q, len(resp.Hits), len(want))
				}
				for i, h := range resp.Hits {
					if h.DocID != want[i].DocID || h.Score != want[i].Score {
						t.Fatalf("query %q hit %d: SQL %s %.17g, fusion.Postgres %s %.17g", q, i, h.DocID, h.Score, want[i].DocID, want[i].Score)
					}
				}
				compared++
			}
			if compared < 50 {
				t.Fatalf("compared %d queries, want >= 50", compared)
			}
		})
	}
}

// TestEFSearchTrap shows the trap the kind avoids: with pgvector's default
// hnsw.ef_search (40) a LIMIT 100 nearest-neighbour query over the HNSW
// index returns 40 rows; the kind's dense candidates number the depth.
func TestEFSearchTrap(t *testing.T) {
	url := database(t)
	corpus, queries := syntheticCorpus(t, 300, 1)
	f := factory(t, url, corpus)
	ctx := context.Background()
	b, err := f.Open(t.TempDir(), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if err := b.Apply(ctx, map[string]any{"depth": 100}); err != nil {
		t.Fatal(err)
	}
	if err := b.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	resp, err := b.Search(ctx, backend.SearchRequest{Query: queries[0], K: 10, Explain: true})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(resp.Candidates[postgres.Dense]); n != 100 {
		t.Errorf("the kind's dense list: %d rows, want 100", n)
	}
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	table := postgres.TableName(postgres.DefaultPrefix, mustConfig(t, f, nil))
	if _, err := conn.Exec(ctx, "SET enable_seqscan = off"); err != nil { // as on a table large enough for the planner to pick the index
		t.Fatal(err)
	}
	var n int
	err = conn.QueryRow(ctx, "SELECT count(*) FROM (SELECT id FROM "+table+" ORDER BY embedding <#> (SELECT embedding FROM "+table+" LIMIT 1) LIMIT 100) x").Scan(&n)
	if err != nil {
		t.Fatal(err)
	}
	if n != 40 {
		t.Errorf("default ef_search: %d rows for LIMIT 100 (pgvector's trap: want 40; has pgvector changed?)", n)
	}
}

func mustConfig(t *testing.T, f *postgres.Factory, params map[string]any) postgres.Config {
	t.Helper()
	var c postgres.Config
	desc := f.Describe(params)
	path := filepath.Join(t.TempDir(), "c.yaml")
	if err := os.WriteFile(path, []byte(desc), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := postgres.ReadConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestTablesKeptForPromotion: the tables a sweep loads (one per
// index-time group) are kept at Close for a promotion; the promotion reads
// the kept table of its group (no reload: the very HNSW index the sweep
// verified) and drops the others; a kept table built from another version
// of the corpus file is loaded again; rolling back past the first
// promotion drops the function and the table it read.
func TestTablesKeptForPromotion(t *testing.T) {
	url := database(t)
	corpus, queries := syntheticCorpus(t, 60, 1)
	f := factory(t, url, corpus)
	ctx := context.Background()
	b, err := f.Open(t.TempDir(), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	tables := func() []string {
		rows, err := conn.Query(ctx, "SELECT tablename FROM pg_tables WHERE tablename LIKE 'fusiontune\\_%' ORDER BY 1")
		if err != nil {
			t.Fatal(err)
		}
		names, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			t.Fatal(err)
		}
		return names
	}
	groups := []map[string]any{{}, {"fusion.k": 10}, {"chunk.size": 6, "chunk.overlap": 2}, {"custom.text_config": "simple"}}
	for i, p := range groups {
		if err := b.Apply(ctx, p); err != nil {
			t.Fatal(err)
		}
		if want := i != 1; b.(backend.Restarter).NeedsRestart() != want {
			t.Errorf("params %v: NeedsRestart %v, want %v", p, !want, want)
		}
		if err := b.Restart(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := b.Search(ctx, backend.SearchRequest{Query: queries[0], K: 5}); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(tables()); n != 3 {
		t.Errorf("%d tables after 3 index-time groups", n)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if n := len(tables()); n != 3 {
		t.Fatalf("%d tables kept after Close, want 3", n)
	}

	prod := filepath.Join(t.TempDir(), "hybrid_search.yaml")
	if err := os.WriteFile(prod, []byte(f.Describe(groups[2])), 0o644); err != nil {
		t.Fatal(err)
	}
	var log strings.Builder
	install, err := f.Verify(prod, t.TempDir(), &log, func(context.Context, backend.Searcher) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	if err := install(ctx); err != nil {
		t.Fatal(err)
	}
	want := postgres.TableName(postgres.DefaultPrefix, mustConfig(t, f, groups[2]))
	if got := tables(); len(got) != 1 || got[0] != want {
		t.Errorf("tables after the promotion %v, want only %s", got, want)
	}
	if strings.Contains(log.String(), "postgres: loaded") {
		t.Errorf("the promotion loaded a table again instead of the one the sweep kept:\n%s", log.String())
	}

	// Another version of the corpus file: a kept table of it is stale.
	b2, err := f.Open(t.TempDir(), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if err := b2.Apply(ctx, groups[0]); err != nil {
		t.Fatal(err)
	}
	if err := b2.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	if err := b2.Close(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(corpus)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(corpus, append(data, []byte(`{"_id": "new", "title": "comet", "text": "a comet and a telescope"}`+"\n")...), 0o644); err != nil {
		t.Fatal(err)
	}
	var reload strings.Builder
	b3, err := f.Open(t.TempDir(), &reload)
	if err != nil {
		t.Fatal(err)
	}
	defer b3.Close()
	if err := b3.Apply(ctx, groups[0]); err != nil {
		t.Fatal(err)
	}
	if err := b3.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(reload.String(), "was kept from another version of") || !strings.Contains(reload.String(), "61 chunks") {
		t.Errorf("a table kept from another corpus was not loaded again:\n%s", reload.String())
	}

	// The rollback past the first promotion.
	if err := os.Remove(prod); err != nil {
		t.Fatal(err)
	}
	if err := install(ctx); err != nil {
		t.Fatal(err)
	}
	if def, err := postgres.FunctionDef(ctx, conn, postgres.DefaultFunction); err != nil || def != "" {
		t.Errorf("the function is still there after the rollback past the first promotion: %v\n%s", err, def)
	}
	for _, tb := range tables() {
		if tb == want {
			t.Errorf("the table the first promotion's function read, %s, is still there", tb)
		}
	}
}

// TestParams lists every bad parameter at once.
func TestParams(t *testing.T) {
	f, err := postgres.New(postgres.Options{URL: "postgres://u@127.0.0.1:1/db", Base: postgres.DefaultConfig("/c.jsonl")})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		params  map[string]any
		wantErr []string
	}{
		{"ok", map[string]any{"fusion.k": 10, "fusion.weights.dense": 0.5, "chunk.size": 100, "chunk.overlap": 10}, nil},
		{"unknown", map[string]any{"bm25.k1": 1.2, "retrievers": []string{"bm25"}}, []string{`bm25.k1: ts_rank_cd, the postgres kind's lexical score, has no BM25 parameters`, `retrievers: not a postgres kind parameter`}},
		{"ranges", map[string]any{"fusion.k": -1, "depth": 2000, "fusion.weights.bm25": -1},
			[]string{"fusion.k: must be in (0, 1e+06] (got -1)", "fusion.depth: must be from 1 to 1000 (got 2000)", "fusion.weights.bm25: must be in [0, 1e+06] (got -1)"}},
		{"method", map[string]any{"fusion.method": "combmnz"}, []string{`fusion.method: must be rrf or linear (min-max) for the postgres kind (got "combmnz")`}},
		{"normalization", map[string]any{"fusion.method": "linear", "fusion.normalization": "z_score"}, []string{`fusion.normalization: the shipped SQL normalizes by min_max only`}},
		{"text config", map[string]any{"custom.text_config": "english'; DROP TABLE x; --"}, []string{"bm25.text_config: must be a text search configuration name"}},
		{"chunks", map[string]any{"chunk.size": 10, "chunk.overlap": 10}, []string{"chunk: need size >= 0 and 0 <= overlap < size"}},
		{"model", map[string]any{"dense.model": "lsa-0"}, []string{"dense.model: embed:"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := f.Check(tc.params)
			if tc.wantErr == nil {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil {
				t.Fatalf("no error, want %q", tc.wantErr)
			}
			for _, w := range tc.wantErr {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q\nwant it to contain %q", err, w)
				}
			}
		})
	}
	if _, err := postgres.New(postgres.Options{URL: "postgres://u:hunter2@h/db", Base: postgres.DefaultConfig("/c.jsonl")}); err == nil ||
		strings.Contains(err.Error(), "hunter2") || !strings.Contains(err.Error(), "password") {
		t.Errorf("a URL with a password: %v", err)
	}
}

// TestEffectiveQueryTime: without a config of its own to read, a
// parameter the trial leaves unset takes the value the hybrid SQL fuses
// with (its fusion settings, defaults applied).
func TestEffectiveQueryTime(t *testing.T) {
	f, err := postgres.New(postgres.Options{URL: "postgres://u@127.0.0.1:1/db", Base: postgres.DefaultConfig("/c.jsonl")})
	if err != nil {
		t.Fatal(err)
	}
	backendtest.CheckEffective(t, f, []backendtest.Effective{
		{Name: "fusion.k", Want: 60.0, OK: true},
		{Params: map[string]any{"fusion.k": 10.0}, Name: "fusion.k", Want: 10.0, OK: true},
		{Name: "fusion.method", Want: "rrf", OK: true},
		{Params: map[string]any{"fusion.k": 10.0}, Name: "fusion.weights.dense", Want: 1.0, OK: true},
		{Name: "chunk.size"},
		{Params: map[string]any{"fusion.method": "combmnz"}, Name: "fusion.k"},
	})
}

// TestVariantsAreSeparateSearches: a request's fusion variants (any
// method, RRF k, weights or depth: the hybrid SQL takes them per call)
// answer exactly what a search with each as its override answers.
func TestVariantsAreSeparateSearches(t *testing.T) {
	url := database(t)
	corpus, queries := syntheticCorpus(t, 200, 20)
	f := factory(t, url, corpus)
	ctx := context.Background()
	b := opened(t, f)
	variants := []fusion.Params{
		{K: 5}, {Weights: map[string]float64{postgres.BM25: 0.2, postgres.Dense: 1.8}},
		{Method: fusion.Method("linear"), Depth: 30}, {K: 100, Depth: 120},
	}
	for _, q := range queries {
		resp, err := b.Search(ctx, backend.SearchRequest{Query: q, K: 20, Variants: variants})
		if err != nil {
			t.Fatal(err)
		}
		if len(resp.Variants) != len(variants) {
			t.Fatalf("query %q: %d variants answered, want %d", q, len(resp.Variants), len(variants))
		}
		for i := range variants {
			one, err := b.Search(ctx, backend.SearchRequest{Query: q, K: 20, Fusion: &variants[i]})
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(resp.Variants[i].Hits, one.Hits) {
				t.Errorf("query %q variant %d: %v, want %v", q, i, resp.Variants[i].Hits, one.Hits)
			}
		}
	}
	if _, err := b.Search(ctx, backend.SearchRequest{Query: queries[0], Variants: []fusion.Params{{Depth: 100000}}}); err == nil || !strings.Contains(err.Error(), "variants[0]") {
		t.Errorf("a variant deeper than ef_search: %v, want an error naming variants[0]", err)
	}
}

// TestURLProblem: the database URL is checked as the driver reads it,
// before any connection, and a password is never echoed.
func TestURLProblem(t *testing.T) {
	tests := []struct{ url, want string }{
		{"postgres://tuner@127.0.0.1:5432/search", ""},
		{"postgresql://tuner@db/search?sslmode=disable", ""},
		{"postgres://tuner@127.0.0.1:99999/search", `port must be a number from 1 to 65535 (got "99999"`},
		{"postgres://tuner@127.0.0.1:0/search", `port must be a number from 1 to 65535 (got "0"`},
		{"mysql://tuner@127.0.0.1/search", `want postgres://user@host:port/database (got "mysql://tuner@127.0.0.1/search")`},
		{"postgres://tuner:pw-secret@127.0.0.1/search", "a URL with a password"},
		{"postgres://tuner@127.0.0.1/search?sslmode=sometimes", "sslmode is invalid"},
		{"postgres://tuner:pw-secret@127.0.0.1:5432/%zz", "the URL does not parse"},
	}
	for _, tt := range tests {
		got := postgres.URLProblem(tt.url)
		if tt.want == "" && got != "" || tt.want != "" && !strings.Contains(got, tt.want) {
			t.Errorf("URLProblem(%q) = %q, want %q", tt.url, got, tt.want)
		}
		if strings.Contains(got, "pw-secret") {
			t.Errorf("URLProblem(%q) shows the password: %q", tt.url, got)
		}
	}
}
