package main_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/backend/postgres"
	"github.com/fusiontune/fusiontune/tuner/studystore/pgtest"
	"github.com/jackc/pgx/v5"
)

// pgvectorDatabase starts a throwaway cluster and returns a connection to
// a fresh database with pgvector and its URL; it skips (fails under CI)
// without pgvector.
func pgvectorDatabase(t *testing.T) (*pgx.Conn, string) {
	t.Helper()
	url := pgtest.Start(t).NewDatabase(t)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(ctx) })
	if _, err := conn.Exec(ctx, "CREATE EXTENSION IF NOT EXISTS vector"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("pgvector: %v (CI is set: .ci/run should have run scripts/install-pgvector.sh)", err)
		}
		t.Skipf("pgvector not installed (scripts/install-pgvector.sh): %v", err)
	}
	return conn, url
}

// TestPostgresApplyBestRollback sweeps the postgres kind in replay mode,
// promotes the best trial twice (--apply-best) and rolls the second back:
// the parameters file and the definition of the function the application
// calls, hybrid_search, are byte for byte what they were; the sweep's
// tables are gone, the promoted one kept.
func TestPostgresApplyBestRollback(t *testing.T) {
	conn, url := pgvectorDatabase(t)
	ctx := context.Background()
	corpus, err := filepath.Abs("../../experiments/demo/corpus.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	e := newSweepEnv(t, sweepSettings+"backend:\n  kind: postgres\n  config: deploy/hybrid_search.yaml\n  postgres:\n    url: "+url+
		"\n    corpus: "+corpus+"\n    model: lsa-32\n")
	if err := os.Mkdir(filepath.Join(e.dir, "deploy"), 0o755); err != nil {
		t.Fatal(err)
	}
	prod := filepath.Join(e.dir, "deploy", "hybrid_search.yaml")
	state := func() (string, string) {
		t.Helper()
		file, err := os.ReadFile(prod)
		if err != nil {
			t.Fatal(err)
		}
		def, err := postgres.FunctionDef(ctx, conn, postgres.DefaultFunction)
		if err != nil {
			t.Fatal(err)
		}
		return string(file), def
	}
	first := e.write("first.json", `{"baseline": {"params": {"fusion.k": 60}}, "experiments": [
	  {"name": "k=5", "params": {"fusion.k": 5}}, {"name": "dense-heavy", "params": {"fusion.weights.bm25": 0.2}}]}`)
	stdout, stderr, code := e.run("--experiments", first, "--mode", "replay", "--verify", "2", "--apply-best", "--force")
	if code != 0 {
		t.Fatalf("first sweep: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stderr, "replay") {
		t.Errorf("the sweep did not replay:\n%s", stderr)
	}
	file1, def1 := state()
	if !strings.Contains(def1, "hybrid_search(query text, query_vec vector, k integer DEFAULT 10") {
		t.Fatalf("function definition:\n%s", def1)
	}
	second := e.write("second.json", `{"baseline": {"params": {"fusion.method": "linear", "fusion.weights.dense": 0.7}}, "experiments": [
	  {"name": "linear-2", "params": {"fusion.method": "linear", "fusion.weights.dense": 0.3, "depth": 50}}]}`)
	stdout, stderr, code = e.run("--experiments", second, "--apply-best", "--force")
	if code != 0 {
		t.Fatalf("second sweep: exit %d\n%s\n%s", code, stdout, stderr)
	}
	file2, def2 := state()
	if file2 == file1 || def2 == def1 {
		t.Fatalf("the second promotion changed nothing:\n%s\n%s", file2, def2)
	}
	out, stderr, code := e.run("rollback")
	if code != 0 {
		t.Fatalf("rollback: exit %d\n%s\n%s", code, out, stderr)
	}
	file3, def3 := state()
	if file3 != file1 {
		t.Errorf("parameters file after rollback:\n%s\nwant:\n%s", file3, file1)
	}
	if def3 != def1 {
		t.Errorf("function after rollback:\n%s\nwant:\n%s", def3, def1)
	}
	var tables []string
	rows, err := conn.Query(ctx, "SELECT tablename FROM pg_tables WHERE tablename LIKE 'fusiontune\\_%' ORDER BY 1")
	if err != nil {
		t.Fatal(err)
	}
	if tables, err = pgx.CollectRows(rows, pgx.RowTo[string]); err != nil {
		t.Fatal(err)
	}
	if len(tables) != 1 || !strings.Contains(def3, tables[0]) {
		t.Errorf("tables left %v: want only the promoted one (the function reads it)", tables)
	}
}
