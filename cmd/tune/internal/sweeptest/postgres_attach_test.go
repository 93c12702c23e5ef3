package sweeptest_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/backend/postgres"
	"github.com/fusiontune/fusiontune/cmd/tune/internal/sweeptest"
)

// TestPostgresAttachSweep attaches the postgres kind to a table the user
// loaded with vectors the kind never computed (backend/postgres's
// testdata/attach), through the settings as tune reads them: it sweeps
// query-time parameters in replay mode, verifies the best live in one
// pass, promotes (the parameters file and a function over the table) and
// rolls back (the function gone); the table is untouched and the kind
// created no table of its own.
func TestPostgresAttachSweep(t *testing.T) {
	url, conn := vectorDatabase(t)
	ctx := context.Background()
	fixtures, err := filepath.Abs("../../../../backend/postgres/testdata/attach")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, `CREATE TABLE articles (doc_key text PRIMARY KEY, body text NOT NULL,
	  body_tsv tsvector GENERATED ALWAYS AS (to_tsvector('english', body)) STORED, emb vector(8) NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	docs, err := os.Open(filepath.Join(fixtures, "docs.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer docs.Close()
	var texts []struct{ id, text string }
	sc := bufio.NewScanner(docs)
	for sc.Scan() {
		var d struct {
			ID, Text string
			Vector   json.RawMessage
		}
		if err := json.Unmarshal(sc.Bytes(), &d); err != nil {
			t.Fatal(err)
		}
		if _, err := conn.Exec(ctx, "INSERT INTO articles (doc_key, body, emb) VALUES ($1, $2, $3::vector)", d.ID, d.Text, string(d.Vector)); err != nil {
			t.Fatal(err)
		}
		texts = append(texts, struct{ id, text string }{d.ID, d.Text})
	}
	// The golden set: each query's documents holding its first word are
	// relevant.
	qdata, err := os.ReadFile(filepath.Join(fixtures, "queries.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var golden strings.Builder
	golden.WriteString(`{"queries": [`)
	for i, line := range strings.Split(strings.TrimSpace(string(qdata)), "\n") {
		var q struct{ Query string }
		if err := json.Unmarshal([]byte(line), &q); err != nil {
			t.Fatal(err)
		}
		var judged []string
		for _, d := range texts {
			if strings.Contains(" "+d.text+" ", " "+strings.Fields(q.Query)[0]+" ") {
				judged = append(judged, fmt.Sprintf(`{"doc_id": %q, "relevance": 2}`, d.id))
			}
		}
		if i > 0 {
			golden.WriteString(",")
		}
		fmt.Fprintf(&golden, `{"id": "q%02d", "query": %q, "expected_passages": [%s]}`, i, q.Query, strings.Join(judged, ", "))
	}
	golden.WriteString("]}\n")
	dir := t.TempDir()
	writeFile(t, dir, "golden.json", golden.String())
	cfg := writeFile(t, dir, "tune.yaml", "runs_dir: runs\neval:\n  concurrency: 4\ndataset:\n  path: golden.json\nbackend:\n  kind: postgres\n  config: deploy/search_params.yaml\n  postgres:\n    url: "+url+
		"\n    attach:\n      table: articles\n      id: doc_key\n      tsvector: body_tsv\n      vector: emb\n      query_vectors: file:"+filepath.Join(fixtures, "queries.jsonl")+"\n      function: search_articles\n")
	exp := writeFile(t, dir, "exp.json", `{"baseline": {"params": {"fusion.k": 60}}, "grid": {"fusion.k": [5, 20, 60], "fusion.weights": [{"bm25": 1, "dense": 1}, {"bm25": 0.3, "dense": 1.7}]}}`)
	t.Chdir(dir)
	fingerprint := func() string {
		var s string
		if err := conn.QueryRow(ctx, `SELECT md5(string_agg(doc_key || body || emb::text, ',' ORDER BY doc_key)) FROM articles`).Scan(&s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	before := fingerprint()

	r := sweeptest.Sweep(t, cfg, exp, sweeptest.Options{Mode: "replay", Verify: 3})
	mustContain(t, "sweep log", r.Log, "replay: collected candidate lists of 24 queries", "(one pass for 3 trials)")
	log := sweeptest.Promote(t, cfg, r, true)
	mustContain(t, "promotion log", log, "function search_articles(query, query_vec, k) now ranks articles")
	params, err := os.ReadFile(filepath.Join(dir, "deploy", "search_params.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	mustContain(t, "parameters file", string(params), "method: rrf", "rrf_k: ", "w_bm25: ", "depth: 100")
	if def, err := postgres.FunctionDef(ctx, conn, "search_articles"); err != nil || !strings.Contains(def, "FROM articles t") {
		t.Fatalf("function: %v\n%s", err, def)
	}
	sweeptest.Rollback(t, cfg)
	if def, err := postgres.FunctionDef(ctx, conn, "search_articles"); err != nil || def != "" {
		t.Errorf("the function is left after the rollback: %v\n%s", err, def)
	}
	var tables int
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM pg_tables WHERE tablename LIKE 'fusiontune\\_%'").Scan(&tables); err != nil || tables != 0 {
		t.Errorf("the kind made %d tables of its own (%v)", tables, err)
	}
	if fingerprint() != before {
		t.Error("the user's table changed")
	}
}
