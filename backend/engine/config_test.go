package engine_test

import (
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/backend/corpus"
	"github.com/fusiontune/fusiontune/backend/engine"
	"github.com/fusiontune/fusiontune/backend/fusion"
)

func TestLoadConfigFull(t *testing.T) {
	c, err := engine.LoadConfig("testdata/config/full.good.yaml")
	if err != nil {
		t.Fatal(err)
	}
	abs, _ := filepath.Abs("testdata/tiny/corpus.jsonl")
	min := func(f float64) *float64 { return &f }
	want := engine.Config{
		Corpus:     corpus.Config{Path: abs, Format: "jsonl", IDField: "_id", TitleField: "title", TextField: "text"},
		Chunk:      corpus.ChunkConfig{Size: 120, Overlap: 20},
		Retrievers: []string{"bm25", "dense"},
		BM25:       engine.BM25Config{K1: 1.2, B: 0.75, MinScore: min(0.5)},
		Dense:      engine.DenseConfig{Model: "openai:text-embedding-3-small", BaseURL: "http://127.0.0.1:11434", APIKeyEnv: "EMBED_KEY", MinScore: min(0.2)},
		Fusion:     fusion.Params{Method: "linear", K: 60, Weights: map[string]float64{"bm25": 0.3, "dense": 0.7}, Normalization: "z_score"},
		Depth:      200,
		MinScore:   min(0.01),
		Passage:    true,
		CacheDir:   "/tmp/fusiontune-cache",
		Listen:     "127.0.0.1:0",
	}
	if !reflect.DeepEqual(c, want) {
		t.Errorf("got\n%+v\nwant\n%+v", c, want)
	}
	if p := c.FusionParams(); p.Depth != 200 || p.Method != fusion.Linear {
		t.Errorf("FusionParams = %+v", p)
	}
}

func TestLoadConfigDefaultsAndRoundTrip(t *testing.T) {
	c, err := engine.LoadConfig("testdata/tiny.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if c.BM25.K1 != engine.DefaultK1 || c.BM25.B != engine.DefaultB || c.Fusion.Normalization != fusion.MinMax {
		t.Errorf("defaults not applied: %+v", c)
	}
	if !filepath.IsAbs(c.CacheDir) || !strings.HasSuffix(c.CacheDir, filepath.Join("testdata", "cache")) {
		t.Errorf("cache_dir %q not resolved against the config's directory", c.CacheDir)
	}
	p := filepath.Join(t.TempDir(), "engine.yaml")
	if err := c.WriteFile(p); err != nil {
		t.Fatal(err)
	}
	back, err := engine.LoadConfig(p)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, c) {
		t.Errorf("round trip:\n%+v\n%+v", back, c)
	}
}

func TestLoadConfigErrors(t *testing.T) {
	tests := []struct {
		file string
		want []string
	}{
		{"unknown.bad.yaml", []string{
			`testdata/config/unknown.bad.yaml:3:3: corpus.fromat: unknown key "fromat" (did you mean "format"?)`,
			`testdata/config/unknown.bad.yaml:6:3: chunk.overlapp: unknown key "overlapp" (did you mean "overlap"?)`,
		}},
		{"invalid.bad.yaml", []string{
			"invalid.bad.yaml:1:1: corpus.path: required",
			"invalid.bad.yaml:2:3: corpus.format: unknown format \"csv\"",
			"invalid.bad.yaml:5:3: chunk.overlap: must be >= 0 and < chunk.size (got 10 with size 10)",
			"invalid.bad.yaml:6:20: retrievers[1]: unknown retriever \"sparse\"",
			"invalid.bad.yaml:8:3: bm25.b: must be in [0, 1] (got 1.5)",
			"invalid.bad.yaml:10:3: fusion.method: unknown method \"borda\"",
			"invalid.bad.yaml:11:3: fusion.k: must be > 0",
			"invalid.bad.yaml:13:5: fusion.weights.sparse: unknown retriever \"sparse\" (want bm25 or dense)",
			"invalid.bad.yaml:14:1: depth: must be >= 0 (got -3)",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			_, err := engine.LoadConfig(filepath.Join("testdata", "config", tt.file))
			var ce *engine.ConfigError
			if !errors.As(err, &ce) {
				t.Fatalf("error %v (%T), want *engine.ConfigError", err, err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error\n%v\nlacks %q", err, w)
				}
			}
			if n := len(strings.Split(err.Error(), "\n")); n != len(tt.want) {
				t.Errorf("%d problems reported, want %d:\n%v", n, len(tt.want), err)
			}
		})
	}
}

// TestParseConfigSecondDocument refuses an engine config with a second YAML
// document, which yaml.Unmarshal would drop without a word.
func TestParseConfigSecondDocument(t *testing.T) {
	for _, in := range []string{
		"corpus:\n  path: a.jsonl\n---\ncorpus:\n  path: b.jsonl\n",
		"bm25:\n  k1: 1.2\n...\n--- {bm25: {k1: 2}}\n",
	} {
		_, err := engine.ParseConfig([]byte(in), "e.yaml", "/")
		if err == nil || !strings.Contains(err.Error(), "a second YAML document") || !strings.HasPrefix(err.Error(), "e.yaml:") {
			t.Errorf("ParseConfig(%q) error %v, want e.yaml:LINE: a second YAML document", in, err)
		}
	}
}

func TestParseConfigSyntaxError(t *testing.T) {
	_, err := engine.ParseConfig([]byte("corpus:\n  path: [a\n"), "e.yaml", "/")
	if err == nil || !strings.HasPrefix(err.Error(), "e.yaml:") {
		t.Errorf("error %v, want it to start with e.yaml:", err)
	}
}

func FuzzParseConfig(f *testing.F) {
	f.Add([]byte("corpus:\n  path: c.jsonl\nchunk:\n  size: 3\n"))
	f.Add([]byte("retrievers: [bm25]\nfusion: {method: rrf, k: 10}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := engine.ParseConfig(data, "f.yaml", "/base")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f.yaml") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		if err := c.Validate(); err != nil {
			t.Fatalf("accepted config fails Validate: %v", err)
		}
	})
}
