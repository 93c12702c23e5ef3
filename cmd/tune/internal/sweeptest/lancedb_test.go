package sweeptest_test

import (
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/backend/lancedb"
	"github.com/fusiontune/fusiontune/backend/lancedb/lancedbtest"
	"github.com/fusiontune/fusiontune/cmd/tune/internal/sweeptest"
)

// lancedbSettings writes the manual's lancedb settings (with the source
// tree's sidecar and a quicker embedder) as tune.yaml in a new directory
// with a deploy directory for the production config, and returns its
// path; it skips t without the sidecar (fails under CI=true).
func lancedbSettings(t *testing.T) string {
	t.Helper()
	sidecar := lancedbtest.SidecarDir(t)
	yaml := sweeptest.README(t, "lancedb/tune.yaml", strings.NewReplacer("sidecar: backend/lancedb/sidecar", "sidecar: "+sidecar, "lsa-256", "lsa-64"))
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "deploy"), 0o755); err != nil {
		t.Fatal(err)
	}
	return writeFile(t, dir, "tune.yaml", yaml)
}

// lancedbGrid is a k × limit grid: one collection per limit (the full-text
// leg's ties depend on it), every k replayed from it.
const lancedbGrid = `baseline:
  params: {fusion.k: 60, limit: 50}
grid:
  fusion.k: [1, 10, 200]
  limit: [20, 50]
`

// TestLanceDBSweepReplay sweeps a k × limit grid on the demo dataset
// through the lancedb kind (a real LanceDB in its sidecar, a sandbox
// table) in replay mode, verifying every trial live: LanceDB's hybrid
// answers must equal the replay of its legs by fusion.LanceDBRRF (the run
// fails otherwise), and a live sweep scores every trial the same. Then
// the best trial is promoted, a second trial promoted over it, and two
// rollbacks restore the first production file byte for byte and then
// none.
func TestLanceDBSweepReplay(t *testing.T) {
	cfg := lancedbSettings(t)
	exp := writeFile(t, filepath.Dir(cfg), "grid.yaml", lancedbGrid)
	rep := sweeptest.Sweep(t, cfg, exp, sweeptest.Options{Mode: "replay", Verify: 100})
	for _, want := range []string{"lancedb: sidecar started", "lancedb: table fusiontune_", "collected candidate lists of"} {
		if !strings.Contains(rep.Log, want) {
			t.Errorf("log lacks %q:\n%s", want, rep.Log)
		}
	}
	if n := strings.Count(rep.Log, "collected candidate lists of"); n != 2 {
		t.Errorf("%d collections, want 2 (one per limit):\n%s", n, rep.Log)
	}
	diffs := regexp.MustCompile(`verified "[^"]+" live through [^\n]*\(largest difference ([^)]+)\)`).FindAllStringSubmatch(rep.Log, -1)
	if len(diffs) != 7 {
		t.Errorf("%d trials verified live, want 7:\n%s", len(diffs), rep.Log)
	}
	for _, d := range diffs {
		if x, err := strconv.ParseFloat(d[1], 64); err != nil || x > 1e-9 {
			t.Errorf("replay and live differ: %s", d[0])
		}
	}
	replayed := rep.Trials(t)
	if len(replayed) != 7 {
		t.Fatalf("%d trials on the leaderboard, want 7", len(replayed))
	}
	for name, tr := range replayed {
		if tr.Status != "ok" || tr.Mode != "verified" {
			t.Errorf("trial %s: status %s mode %s, want ok, verified", name, tr.Status, tr.Mode)
		}
	}
	live := sweeptest.Sweep(t, cfg, exp, sweeptest.Options{Mode: "live"}).Trials(t)
	for name, tr := range replayed {
		if l, ok := live[name]; !ok || l.Mode != "live" || math.Abs(l.Primary-tr.Primary) > 1e-9 {
			t.Errorf("trial %s: replayed primary %v, live %+v", name, tr.Primary, l)
		}
	}

	// Promotion and rollback.
	prod := filepath.Join(filepath.Dir(cfg), "deploy", "lancedb.json")
	read := func() lancedb.Config {
		t.Helper()
		c, err := lancedb.ReadConfig(prod)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	if log := sweeptest.Promote(t, cfg, rep, true); !strings.Contains(log, "lancedb: sidecar started") {
		t.Errorf("the promotion did not verify on a sidecar:\n%s", log)
	}
	first, err := os.ReadFile(prod)
	if err != nil {
		t.Fatal(err)
	}
	if c := read(); c.Mode != "sandbox" || c.Model != "lsa-64" || !strings.HasPrefix(c.Table, "fusiontune_") {
		t.Errorf("production config %+v", c)
	}
	other := writeFile(t, filepath.Dir(cfg), "other.yaml", "baseline:\n  params: {fusion.k: 3, limit: 10}\n")
	sweeptest.Promote(t, cfg, sweeptest.Sweep(t, cfg, other, sweeptest.Options{}), true)
	if c := read(); c.K != 3 || c.Limit != 10 {
		t.Errorf("after the second promotion: %+v, want k 3, limit 10", c)
	}
	sweeptest.Rollback(t, cfg)
	if got, err := os.ReadFile(prod); err != nil || string(got) != string(first) {
		t.Errorf("after rollback: %q, %v; want the first promotion's file %q", got, err, first)
	}
	sweeptest.Rollback(t, cfg)
	if _, err := os.Stat(prod); !os.IsNotExist(err) {
		t.Errorf("after rolling back the first promotion the production config is still there (%v)", err)
	}
}

// TestLanceDBAttachSweep builds a LanceDB table the way a user would
// (their own hash-48 vectors, read from a file, column names of their own,
// an FTS index), attaches the kind to it, sweeps k and limit in replay
// mode with every trial verified live, promotes the best trial and rolls
// it back; the table's files are unchanged throughout.
func TestLanceDBAttachSweep(t *testing.T) {
	sidecar := lancedbtest.SidecarDir(t)
	dir := t.TempDir()

	// The user's table and their query vectors.
	queries := lancedbtest.Queries(t, "../../../../experiments/demo/golden.json")
	db := filepath.Join(dir, "userdb")
	lancedbtest.UserTable(t, sidecar, "../../../../experiments/demo/corpus.jsonl", lancedb.Table{URI: db, Name: "kb", ID: "doc_id", Text: "body", Vector: "embedding"},
		queries, filepath.Join(dir, "query-vectors.jsonl"))
	before := lancedbtest.Tree(t, db)

	if err := os.Mkdir(filepath.Join(dir, "deploy"), 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := writeFile(t, dir, "tune.yaml", `runs_dir: runs
backend:
  kind: lancedb
  config: deploy/lancedb.json
  lancedb:
    sidecar: `+sidecar+`
    uri: userdb
    table: kb
    id_column: doc_id
    text_column: body
    vector_column: embedding
    distance: cosine
    model: file:query-vectors.jsonl
`)
	exp := writeFile(t, dir, "grid.yaml", lancedbGrid)
	rep := sweeptest.Sweep(t, cfg, exp, sweeptest.Options{Mode: "replay", Verify: 100})
	if !strings.Contains(rep.Log, "lancedb: attached to table kb") {
		t.Errorf("log lacks the attachment:\n%s", rep.Log)
	}
	trials := rep.Trials(t)
	if len(trials) != 7 {
		t.Fatalf("%d trials, want 7:\n%s", len(trials), rep.Log)
	}
	for name, tr := range trials {
		if tr.Status != "ok" || tr.Mode != "verified" {
			t.Errorf("trial %s: status %s mode %s, want ok, verified", name, tr.Status, tr.Mode)
		}
	}
	sweeptest.Promote(t, cfg, rep, true)
	prod := filepath.Join(dir, "deploy", "lancedb.json")
	pc, err := lancedb.ReadConfig(prod)
	if err != nil {
		t.Fatal(err)
	}
	if pc.Mode != "attach" || pc.Table != "kb" || pc.URI != db || pc.VectorColumn != "embedding" || pc.Distance != "cosine" {
		t.Errorf("production config %+v", pc)
	}
	sweeptest.Rollback(t, cfg)
	if _, err := os.Stat(prod); !os.IsNotExist(err) {
		t.Errorf("after rolling back the first promotion the production config is still there (%v)", err)
	}
	if after := lancedbtest.Tree(t, db); after != before {
		t.Errorf("the attached table's files changed:\nbefore %s\nafter  %s", before, after)
	}
}
