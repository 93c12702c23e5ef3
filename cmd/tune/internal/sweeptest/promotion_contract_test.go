package sweeptest_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/backend/postgres"
	"github.com/fusiontune/fusiontune/cmd/tune/internal/sweeptest"
	"github.com/jackc/pgx/v5"
)

// promotionKind is one backend kind under the promotion contract: its
// settings (backend.config naming a file that does not exist yet) and
// what it has installed besides the file ("" when nothing).
type promotionKind struct {
	name      string
	settings  func(t *testing.T) string
	installed func(t *testing.T) string
}

// TestPromotionContract: on every kind, from no production config,
// apply → rollback → apply → rollback: each apply creates the production
// config and passes its smoke evaluation on what the sweep verified
// (postgres: the table the sweep kept, not one loaded again); each
// rollback removes the file and everything the promotion installed
// besides it (postgres: the function hybrid_search and its table).
func TestPromotionContract(t *testing.T) {
	corpus, err := filepath.Abs("../../../../experiments/demo/corpus.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var conn *pgx.Conn
	kinds := []promotionKind{
		{name: "embedded", settings: func(t *testing.T) string {
			return "backend:\n  config: deploy/engine.yaml\n  engine:\n    dense:\n      model: hash-384\n"
		}, installed: func(*testing.T) string { return "" }},
		{name: "postgres", settings: func(t *testing.T) string {
			url, c := vectorDatabase(t)
			conn = c
			return "backend:\n  kind: postgres\n  config: deploy/hybrid_search.yaml\n  postgres:\n    url: " + url + "\n    corpus: " + corpus + "\n    model: lsa-32\n"
		}, installed: func(t *testing.T) string {
			ctx := context.Background()
			def, err := postgres.FunctionDef(ctx, conn, postgres.DefaultFunction)
			if err != nil {
				t.Fatal(err)
			}
			var tables string
			if err := conn.QueryRow(ctx, "SELECT coalesce(string_agg(tablename, ' '), '') FROM pg_tables WHERE tablename LIKE 'fusiontune\\_%'").Scan(&tables); err != nil {
				t.Fatal(err)
			}
			if def == "" && tables == "" {
				return ""
			}
			return "function: " + def + "\ntables: " + tables
		}},
	}
	for _, k := range kinds {
		t.Run(k.name, func(t *testing.T) {
			t.Setenv("XDG_CACHE_HOME", t.TempDir())
			dir := t.TempDir()
			t.Chdir(dir)
			settings := k.settings(t)
			cfg := writeFile(t, dir, "tune.yaml", "runs_dir: runs\neval:\n  concurrency: 4\ndataset:\n  corpus: "+corpus+"\n"+settings)
			exp := writeFile(t, dir, "exp.json", `{"baseline": {"params": {"fusion.k": 60}}, "experiments": [{"name": "k=5", "params": {"fusion.k": 5}}]}`)
			prod := filepath.Join(dir, strings.TrimSpace(strings.SplitN(strings.SplitN(settings, "config: ", 2)[1], "\n", 2)[0]))
			for round := 1; round <= 2; round++ {
				r := sweeptest.Sweep(t, cfg, exp, sweeptest.Options{})
				log := sweeptest.Promote(t, cfg, r, true)
				if _, err := os.Stat(prod); err != nil {
					t.Fatalf("round %d: apply left no production config: %v\n%s", round, err, log)
				}
				if k.installed(t) == "" && k.name == "postgres" {
					t.Fatalf("round %d: apply installed nothing in the database\n%s", round, log)
				}
				if strings.Contains(log, "postgres: loaded") {
					t.Errorf("round %d: the promotion loaded a table again instead of the one the sweep verified:\n%s", round, log)
				}
				sweeptest.Rollback(t, cfg)
				if _, err := os.Stat(prod); !errors.Is(err, os.ErrNotExist) {
					t.Errorf("round %d: rollback left the production config: %v", round, err)
				}
				if left := k.installed(t); left != "" {
					t.Errorf("round %d: rollback of the first promotion left what it installed:\n%s", round, left)
				}
			}
		})
	}
}
