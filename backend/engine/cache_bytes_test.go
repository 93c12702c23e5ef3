package engine_test

import (
	"context"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/fusiontune/fusiontune/backend/corpus"
	"github.com/fusiontune/fusiontune/backend/engine"
)

// TestDemoCacheFilesUnchanged pins the bytes of every cache file a cold
// build of the demo corpus writes (bm25 + lsa-128; whole documents and
// 64/16-token chunks): the SHA-256s were recorded with main 6655e89,
// before the build stopped holding every indexed text, memoized its
// analysis and reworked the SVD's products. A change to what is indexed,
// how it is weighted or how a cache file is laid out shows here.
func TestDemoCacheFilesUnchanged(t *testing.T) {
	want := map[string]map[string]string{
		"whole": {
			"bm25.idx":    "657dfa74cd8dedae0b235c9d244260206365a85ff9f0971f4d7952b15e34f4fd",
			"model.bin":   "0117a05eafbeb16df1f8260215f1631afdf68612558190292dc207f304146ba6",
			"vectors.f32": "283644235b2b7bd9ea7f2ad2f30e45b0d1d8aeeda9a7e35bc046fe194f5b9feb",
		},
		"chunks": {
			"bm25.idx":    "665e50c7b8c4a85b591f913c9aaed56e714db6b6e170254aa7531199d15aa0e4",
			"model.bin":   "b7f81dc2feadc02b2da600141d0e46a8e5772210fa047761b8e2d8ed1f60277b",
			"vectors.f32": "8fd9a978d4fdfffec47357a5c4cd67a0726cfcec1e761e06b18462f0d300ccb0",
		},
	}
	for _, tt := range []struct {
		name  string
		chunk corpus.ChunkConfig
	}{{"whole", corpus.ChunkConfig{}}, {"chunks", corpus.ChunkConfig{Size: 64, Overlap: 16}}} {
		c := engine.DefaultConfig()
		c.Corpus = corpus.Config{Path: "../../experiments/demo/corpus.jsonl", Format: corpus.FormatBEIR}
		c.Retrievers = []string{engine.BM25, engine.Dense}
		c.Dense.Model = "lsa-128"
		c.Chunk = tt.chunk
		c.CacheDir = t.TempDir()
		e, err := engine.New(c, engine.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if err := e.Build(context.Background()); err != nil {
			t.Fatal(err)
		}
		e.Close()
		st := e.Stats()
		for _, f := range []string{filepath.Join(st.LexicalDir, "bm25.idx"), filepath.Join(filepath.Dir(st.DenseCacheFile), "model.bin"), st.DenseCacheFile} {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			got := fmt.Sprintf("%x", sha256.Sum256(data))
			if w := want[tt.name][filepath.Base(f)]; got != w {
				t.Errorf("%s: %s sha256 %s, want %s", tt.name, filepath.Base(f), got, w)
			}
		}
	}
}
