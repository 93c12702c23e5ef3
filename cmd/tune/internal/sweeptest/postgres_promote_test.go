package sweeptest_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/backend/postgres"
	"github.com/fusiontune/fusiontune/cmd/tune/internal/sweeptest"
	"github.com/fusiontune/fusiontune/internal/pgtest"
	"github.com/jackc/pgx/v5"
)

// TestPostgresApplyBestRollback sweeps the postgres kind in replay mode,
// promotes the best trial twice (as --apply-best does) and rolls the second back:
// the parameters file and the definition of the function the application
// calls, hybrid_search, are byte for byte what they were; the sweep's
// tables are gone, the promoted one kept.
func TestPostgresApplyBestRollback(t *testing.T) {
	url, conn := vectorDatabase(t)
	ctx := context.Background()
	corpus, err := filepath.Abs("../../../../experiments/demo/corpus.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cfg := writeFile(t, dir, "tune.yaml", "runs_dir: runs\neval:\n  concurrency: 4\nbackend:\n  kind: postgres\n  config: deploy/hybrid_search.yaml\n  postgres:\n    url: "+url+
		"\n    corpus: "+corpus+"\n    model: lsa-32\n")
	if err := os.Mkdir(filepath.Join(dir, "deploy"), 0o755); err != nil {
		t.Fatal(err)
	}
	prod := filepath.Join(dir, "deploy", "hybrid_search.yaml")
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
	first := writeFile(t, dir, "first.json", `{"baseline": {"params": {"fusion.k": 60}}, "experiments": [
	  {"name": "k=5", "params": {"fusion.k": 5}}, {"name": "dense-heavy", "params": {"fusion.weights.bm25": 0.2}}]}`)
	r := sweeptest.Sweep(t, cfg, first, sweeptest.Options{Mode: "replay", Verify: 2})
	if !strings.Contains(r.Log, "replay") {
		t.Errorf("the sweep did not replay:\n%s", r.Log)
	}
	// The hybrid SQL takes every fusion setting per call: the verified
	// trials share one live pass.
	if strings.Contains(r.Log, "one pass per trial") || !strings.Contains(r.Log, "(one pass for 2 trials)") {
		t.Errorf("the verification did not run in one live pass:\n%s", r.Log)
	}
	sweeptest.Promote(t, cfg, r, true)
	file1, def1 := state()
	if !strings.Contains(def1, "hybrid_search(query text, query_vec vector, k integer DEFAULT 10") {
		t.Fatalf("function definition:\n%s", def1)
	}
	second := writeFile(t, dir, "second.json", `{"baseline": {"params": {"fusion.method": "linear", "fusion.weights.dense": 0.7}}, "experiments": [
	  {"name": "linear-2", "params": {"fusion.method": "linear", "fusion.weights.dense": 0.3, "depth": 50}}]}`)
	sweeptest.Promote(t, cfg, sweeptest.Sweep(t, cfg, second, sweeptest.Options{}), true)
	file2, def2 := state()
	if file2 == file1 || def2 == def1 {
		t.Fatalf("the second promotion changed nothing:\n%s\n%s", file2, def2)
	}
	sweeptest.Rollback(t, cfg)
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

// vectorDatabase is a fresh database with pgvector (pgtest.VectorDatabase)
// and a connection to it, closed when t ends.
func vectorDatabase(t *testing.T) (string, *pgx.Conn) {
	t.Helper()
	url := pgtest.VectorDatabase(t)
	conn, err := pgx.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return url, conn
}
