package weaviate_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/backend/engine"
	"github.com/fusiontune/fusiontune/backend/weaviate"
)

// TestProductionFile checks the production config a promotion writes from
// a trial's recorded config: the production class (not the sweep's), the
// trial's settings and the corpus, which ReadProduction reads back.
func TestProductionFile(t *testing.T) {
	f, err := weaviate.New(weaviate.Options{URL: "http://127.0.0.1:1", Model: "hash-64", Corpus: engine.CorpusConfig{Path: "/data/corpus.jsonl"}})
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
