package sweeptest_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/backend/embed"
	"github.com/fusiontune/fusiontune/backend/weaviate"
	"github.com/fusiontune/fusiontune/backend/weaviate/weaviatetest"
	"github.com/fusiontune/fusiontune/cmd/tune/internal/sweeptest"
)

// weaviateProduction is what the production server and file say: the
// file's bytes, the production class's BM25 settings on the server, and
// the server's answer to a query built from the file as an application
// builds it (its class, alpha, fusionType and the model's query vector).
type weaviateProduction struct {
	file  string
	k1, b float64
	hits  []string
}

// TestWeaviateApplyBestRollback promotes into a real weaviate-server given
// by url (the user's production server), as --apply-best and tune rollback
// do: a first sweep's best trial, then
// a second one's with other BM25 settings and alpha; after each promotion
// the production class on the server has the promoted k1 and b and
// answers the file's query; rollback restores the first file byte for
// byte, and the server its BM25 settings and its answers. The sweeps'
// classes are dropped, the production class kept.
func TestWeaviateApplyBestRollback(t *testing.T) {
	// A flush 1 s after an import, so that backend.settle (5 s) covers it.
	srv := weaviatetest.StartWith(t, weaviate.ServerOptions{Env: []string{"PERSISTENCE_MEMTABLES_FLUSH_DIRTY_AFTER_SECONDS=1"}})
	dir := t.TempDir()
	cfg := writeFile(t, dir, "tune.yaml", "runs_dir: runs\nbackend:\n  kind: weaviate\n  config: deploy/weaviate.json\n  settle: 5s\n  weaviate:\n    url: "+
		srv.URL+"\n    model: hash-64\n")
	if err := os.Mkdir(filepath.Join(dir, "deploy"), 0o755); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	c := weaviate.NewClient(srv.URL)
	emb, err := embed.ForQueries(ctx, "hash-64", embed.Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	const query = "how do I reset my password"
	state := func() weaviateProduction {
		t.Helper()
		path := filepath.Join(dir, "deploy", "weaviate.json")
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		p, err := weaviate.ReadProduction(path)
		if err != nil {
			t.Fatal(err)
		}
		s := weaviateProduction{file: string(data)}
		if s.k1, s.b, err = c.BM25Of(ctx, p.Class); err != nil {
			t.Fatal(err)
		}
		vec, err := emb.EmbedQuery(ctx, query)
		if err != nil {
			t.Fatal(err)
		}
		hits, err := c.Hybrid(ctx, weaviate.HybridQuery{Class: p.Class, Query: query, Vector: vec, Alpha: p.Alpha, FusionType: p.FusionType, Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) == 0 {
			t.Fatalf("no hits for %q in %s", query, p.Class)
		}
		for _, h := range hits {
			s.hits = append(s.hits, fmt.Sprintf("%s %v", h.DocID, h.Score))
		}
		return s
	}

	first := writeFile(t, dir, "first.yaml", `baseline:
  params: {alpha: 0.75}
experiments:
  - name: ranked-half
    params: {alpha: 0.5, fusionType: rankedFusion}
`)
	sweeptest.Promote(t, cfg, sweeptest.Sweep(t, cfg, first, sweeptest.Options{}), true)
	s1 := state()
	if s1.k1 != 1.2 || s1.b != 0.75 {
		t.Errorf("after the first promotion the server's class has k1 %v, b %v; want 1.2, 0.75", s1.k1, s1.b)
	}
	if !strings.Contains(s1.file, `"class": "FusiontuneProd_`) || !strings.Contains(s1.file, `"model": "hash-64"`) {
		t.Errorf("production file:\n%s", s1.file)
	}

	second := writeFile(t, dir, "second.yaml", `baseline:
  params: {alpha: 0.3, bm25.k1: 0.9, bm25.b: 0.4}
experiments:
  - name: ranked-bm25
    params: {alpha: 0.2, fusionType: rankedFusion}
`)
	if log := sweeptest.Promote(t, cfg, sweeptest.Sweep(t, cfg, second, sweeptest.Options{}), true); !strings.Contains(log, "answers hybrid queries with alpha") {
		t.Errorf("the promotion did not install on the server:\n%s", log)
	}
	s2 := state()
	if s2.k1 != 0.9 || s2.b != 0.4 {
		t.Errorf("after the second promotion the server's class has k1 %v, b %v; want 0.9, 0.4", s2.k1, s2.b)
	}
	if s2.file == s1.file || reflect.DeepEqual(s2.hits, s1.hits) {
		t.Fatalf("the second promotion changed nothing:\n%s\n%v", s2.file, s2.hits)
	}

	sweeptest.Rollback(t, cfg)
	s3 := state()
	if s3.file != s1.file {
		t.Errorf("production file after rollback:\n%s\nwant:\n%s", s3.file, s1.file)
	}
	if s3.k1 != s1.k1 || s3.b != s1.b {
		t.Errorf("after rollback the server's class has k1 %v, b %v; want %v, %v", s3.k1, s3.b, s1.k1, s1.b)
	}
	if !reflect.DeepEqual(s3.hits, s1.hits) {
		t.Errorf("after rollback the server answers\n%v\nwant (as after the first promotion)\n%v", s3.hits, s1.hits)
	}
	classes, err := c.Classes(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(classes) != 1 || !strings.HasPrefix(classes[0], "FusiontuneProd_") {
		t.Errorf("classes left on the server %v: want only the production class", classes)
	}
}

// TestWeaviateBinSweepPromotesIntoServer sweeps on a server the kind
// starts (bin), whose classes go when the run ends, and promotes the
// winner with settings naming the user's server (url) instead: the
// promotion loads the production class there, where it stays and answers
// the production file's query.
func TestWeaviateBinSweepPromotesIntoServer(t *testing.T) {
	cfg := kindSettings(t)
	dir := filepath.Dir(cfg)
	exp := writeFile(t, dir, "exp.yaml", "baseline:\n  params: {alpha: 0.75}\nexperiments:\n  - name: ranked-half\n    params: {alpha: 0.5, fusionType: rankedFusion}\n")
	r := sweeptest.Sweep(t, cfg, exp, sweeptest.Options{})
	srv := weaviatetest.Start(t, 0)
	data, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	bin, _ := weaviatetest.Bin()
	prod := writeFile(t, dir, "prod.yaml", strings.Replace(string(data), "bin: "+bin, "url: "+srv.URL, 1))
	if err := os.MkdirAll(filepath.Join(dir, "deploy"), 0o755); err != nil {
		t.Fatal(err)
	}
	sweeptest.Promote(t, prod, r, true)
	p, err := weaviate.ReadProduction(filepath.Join(dir, "deploy", "weaviate.json"))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	c := weaviate.NewClient(srv.URL)
	classes, err := c.Classes(ctx)
	if err != nil || len(classes) != 1 || classes[0] != p.Class {
		t.Fatalf("classes on the user's server %v (%v), want [%s]", classes, err, p.Class)
	}
	emb, err := embed.ForQueries(ctx, p.Model, embed.Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	vec, _ := emb.EmbedQuery(ctx, "solar power")
	hits, err := c.Hybrid(ctx, weaviate.HybridQuery{Class: p.Class, Query: "solar power", Vector: vec, Alpha: p.Alpha, FusionType: p.FusionType, Limit: 5})
	if err != nil || len(hits) == 0 {
		t.Fatalf("the promoted class answers %v (%v)", hits, err)
	}
}
