package sweeptest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/backend/embed"
	"github.com/fusiontune/fusiontune/backend/weaviate"
	"github.com/fusiontune/fusiontune/backend/weaviate/weaviatetest"
	"github.com/fusiontune/fusiontune/cmd/tune/internal/sweeptest"
)

// TestWeaviateAttachSweepPromoteRollback attaches to a class the user
// built on a real weaviate-server (vectors precomputed, read from a file)
// with query vectors from an OpenAI-compatible endpoint on loopback (tune
// embed's handler), sweeps alpha x fusionType by replay with the best
// trials verified live against Weaviate's own hybrid answer in one pass
// (alpha and fusionType sent per request, one hybrid query per trial and
// query), promotes the
// winner (the production file with the query parameters and the GraphQL
// query), rolls back (the file removed), and leaves the class as it was.
func TestWeaviateAttachSweepPromoteRollback(t *testing.T) {
	const depth = 40
	srv := weaviatetest.StartWith(t, weaviate.ServerOptions{MaxResults: depth, Env: []string{"USE_INVERTED_SEARCHABLE=true"}})
	data, err := filepath.Abs("../../../../backend/weaviate/testdata/attach")
	if err != nil {
		t.Fatal(err)
	}
	u := weaviatetest.LoadUserClass(t, srv, data, depth)
	schema := weaviatetest.Get(t, srv.URL+"/v1/schema/"+u.Name)
	hash, err := embed.New("hash-32", embed.Options{})
	if err != nil {
		t.Fatal(err)
	}
	endpoint := httptest.NewServer(embed.Handler(map[string]embed.Embedder{"hash-32": hash}))
	defer endpoint.Close()

	dir := t.TempDir()
	cfg := writeFile(t, dir, "tune.yaml", `runs_dir: runs
dataset:
  path: `+data+`
  format: beir
  split: all
backend:
  kind: weaviate
  config: deploy/weaviate.json
  weaviate:
    url: `+srv.URL+`
    max_results: 40
    class: Papers
    id_property: paper_id
    query_vectors: openai:hash-32
    base_url: `+endpoint.URL+`
`)
	if err := os.Mkdir(filepath.Join(dir, "deploy"), 0o755); err != nil {
		t.Fatal(err)
	}
	exp := writeFile(t, dir, "exp.yaml", `baseline:
  params: {alpha: 0.75}
grid:
  alpha: [0, 0.2, 0.4, 0.6, 0.8, 1]
  fusionType: [rankedFusion, relativeScoreFusion]
`)
	r := sweeptest.Sweep(t, cfg, exp, sweeptest.Options{Mode: "auto", Verify: 3})
	trials := r.Trials(t)
	if len(trials) != 13 {
		t.Fatalf("%d trials, want 13:\n%s", len(trials), r.Log)
	}
	replayed := 0
	for _, tr := range trials {
		if tr.Mode == "replay" {
			replayed++
		}
	}
	if replayed < 10 || !strings.Contains(r.Log, "(one pass for 3 trials)") {
		t.Errorf("%d trials replayed; log:\n%s", replayed, r.Log)
	}
	sweeptest.Promote(t, cfg, r, true)
	path := filepath.Join(dir, "deploy", "weaviate.json")
	a, err := weaviate.ReadAttached(path)
	if err != nil {
		t.Fatal(err)
	}
	if a.Class != "Papers" || a.MaxResults != depth || a.QueryVectors != "openai:hash-32" || !strings.Contains(a.GraphQL, "Papers(hybrid: {query: $query, vector: $vector, alpha: ") {
		t.Errorf("production file: %+v", a)
	}
	var raw map[string]any
	data2, _ := os.ReadFile(path)
	if err := json.Unmarshal(data2, &raw); err != nil || raw["attached"] != nil {
		t.Errorf("production file %s (%v)", data2, err)
	}
	sweeptest.Rollback(t, cfg)
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("after rolling back the first promotion the production file remains (%v)", err)
	}
	if after := weaviatetest.Get(t, srv.URL+"/v1/schema/"+u.Name); !bytes.Equal(after, schema) {
		t.Errorf("the attached class changed:\n%s\n%s", schema, after)
	}
	if n, err := weaviate.NewClient(srv.URL).Count(context.Background(), u.Name); err != nil || n != u.Objects {
		t.Errorf("the class holds %d objects (%v), want %d", n, err, u.Objects)
	}
	classes, err := weaviate.NewClient(srv.URL).Classes(context.Background())
	if err != nil || len(classes) != 1 {
		t.Errorf("classes on the server %v (%v): want only the user's", classes, err)
	}
}
