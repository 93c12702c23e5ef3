package weaviate_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/backend/corpus"
	"github.com/fusiontune/fusiontune/backend/weaviate"
	"github.com/fusiontune/fusiontune/backend/weaviate/weaviatetest"
)

// TestProductionFile checks the production config a promotion writes from
// a trial's recorded config: the production class (not the sweep's), the
// trial's settings and the corpus, which ReadProduction reads back.
func TestProductionFile(t *testing.T) {
	f, err := weaviate.New(weaviate.Options{URL: "http://127.0.0.1:1", Model: "hash-64", Corpus: corpus.Config{Path: "/data/corpus.jsonl"}})
	if err != nil {
		t.Fatal(err)
	}
	rec := f.Describe(map[string]any{"alpha": 0.4, "fusionType": "rankedFusion", "bm25.k1": 0.9})
	data, err := weaviate.ProductionFile([]byte(rec), "")
	if err != nil {
		t.Fatal(err)
	}
	want := `{
  "class": "` + f.ProductionClass("hash-64") + `",
  "alpha": 0.4,
  "fusionType": "rankedFusion",
  "maxResults": 100,
  "k1": 0.9,
  "b": 0.75,
  "model": "hash-64",
  "corpus": "/data/corpus.jsonl"
}
`
	if string(data) != want {
		t.Fatalf("production file:\n%s\nwant:\n%s", data, want)
	}
	if f.ProductionClass("hash-64") == f.ClassName("hash-64") || !strings.HasPrefix(f.ProductionClass("hash-64"), "FusiontuneProd_") {
		t.Errorf("production class %s, sweep class %s", f.ProductionClass("hash-64"), f.ClassName("hash-64"))
	}
	path := filepath.Join(t.TempDir(), "weaviate.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := weaviate.ReadProduction(path)
	if err != nil {
		t.Fatal(err)
	}
	if p.Alpha != 0.4 || p.FusionType != "rankedFusion" || p.K1 != 0.9 || p.B != 0.75 || p.MaxResults != 100 || p.Corpus != "/data/corpus.jsonl" {
		t.Errorf("read back %+v", p)
	}
}

// TestReadProductionErrors checks that a hand-edited production config is
// refused with the file and every field at fault named.
func TestReadProductionErrors(t *testing.T) {
	const good = `{"class": "FusiontuneProd_0123456789", "alpha": 0.5, "fusionType": "rankedFusion", "maxResults": 100, "k1": 1.2, "b": 0.75, "model": "hash-64", "corpus": "/c.jsonl"}`
	for _, tc := range []struct {
		name, file string
		want       []string
	}{
		{"missing", `{"class": "FusiontuneProd_0123456789", "alpha": 0.5}`, []string{"missing model, fusionType, maxResults, k1, b, corpus"}},
		{"unknown field", strings.Replace(good, `"k1"`, `"rrf_k": 60, "k1"`, 1), []string{`unknown field "rrf_k"`}},
		{"ranges", strings.NewReplacer(`"alpha": 0.5`, `"alpha": 1.5`, `"b": 0.75`, `"b": 2`, `"rankedFusion"`, `"rrf"`).Replace(good),
			[]string{"alpha: want a number from 0 to 1 (got 1.5)", "bm25.b: want a number from 0 to 1 (got 2)", "fusionType: want rankedFusion or relativeScoreFusion (got rrf)"}},
		{"class", strings.Replace(good, "FusiontuneProd_", "lower case", 1), []string{`class: want a GraphQL class name, capitalized`}},
		{"corpus", strings.Replace(good, "/c.jsonl", "c.jsonl", 1), []string{`corpus: want an absolute path (got "c.jsonl")`}},
		{"not json", `alpha: 0.5`, []string{"invalid character"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "weaviate.json")
			if err := os.WriteFile(path, []byte(tc.file), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := weaviate.ReadProduction(path)
			if err == nil {
				t.Fatal("accepted")
			}
			for _, w := range append(tc.want, path) {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

// TestVerifyOnOwnServer verifies a production config with bin (no
// production server): the kind starts a server in scratch, loads the
// production class, restarts it on the file's depth, and the check's
// searcher answers with the file's alpha and fusionType (its hits are the
// legs fused offline under them, not under the defaults); the server is
// stopped afterwards.
func TestVerifyOnOwnServer(t *testing.T) {
	bin, err := weaviatetest.Bin()
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%v, and CI=true", err)
		}
		t.Skip(err)
	}
	demo, err := filepath.Abs("../../experiments/demo/corpus.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	f, err := weaviate.New(weaviate.Options{Bin: bin, Model: "hash-64", Corpus: corpus.Config{Path: demo}})
	if err != nil {
		t.Fatal(err)
	}
	params := map[string]any{"alpha": 0.3, "fusionType": "rankedFusion", "bm25.k1": 0.9, "bm25.b": 0.4, "depth": 50}
	tr, err := weaviate.Translate(params)
	if err != nil {
		t.Fatal(err)
	}
	data, err := weaviate.ProductionFile([]byte(f.Describe(params)), "")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "weaviate.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	var log strings.Builder
	checked := 0
	verify, err := f.Verify(path, dir, &log, func(ctx context.Context, s backend.Searcher) error {
		for _, q := range []string{"reset password", "billing invoice refund", "export data to csv"} {
			resp, err := s.Search(ctx, backend.SearchRequest{Query: q, K: 10, Explain: true})
			if err != nil {
				return err
			}
			got := make([]string, len(resp.Hits))
			for i, h := range resp.Hits {
				got[i] = h.DocID
			}
			var want, def []string
			for _, r := range weaviate.Replay(resp.Candidates, tr, 10) {
				want = append(want, r.DocID)
			}
			for _, r := range weaviate.Replay(resp.Candidates, weaviate.Trial{Alpha: weaviate.DefaultAlpha, FusionType: weaviate.DefaultFusionType}, 10) {
				def = append(def, r.DocID)
			}
			if strings.Join(got, " ") != strings.Join(want, " ") {
				t.Errorf("%q: the server answered %v, the file's alpha and fusionType give %v", q, got, want)
			}
			if strings.Join(got, " ") != strings.Join(def, " ") {
				checked++
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := verify(context.Background()); err != nil {
		t.Fatalf("verify: %v\n%s", err, log.String())
	}
	if checked == 0 {
		t.Errorf("no query ranks differently under the file's settings than under the defaults: the check proves nothing")
	}
	for _, want := range []string{"weaviate: class FusiontuneProd_", "restarted with QUERY_HYBRID_MAXIMUM_RESULTS=50", "BM25 k1 0.9, b 0.4"} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("log lacks %q:\n%s", want, log.String())
		}
	}
}
