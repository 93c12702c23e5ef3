package embedded_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/backend/embedded"
	"github.com/fusiontune/fusiontune/backend/engine"
)

// TestMissingConfigFileIsNotYetPromoted: backend.config naming a file that
// does not exist yet (the first promotion creates it) is no error; the
// settings alone make the base config.
func TestMissingConfigFileIsNotYetPromoted(t *testing.T) {
	corpus, _ := filepath.Abs("testdata/corpus.jsonl")
	f := newFactory(t, embedded.Options{ConfigFile: filepath.Join(t.TempDir(), "prod.yaml"), Corpus: corpus})
	cfg, err := f.Config(nil)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Corpus.Path != corpus {
		t.Errorf("corpus.path = %q, want %q", cfg.Corpus.Path, corpus)
	}
}

// TestPortable: the production config names the paths the user wrote
// relative relative to its own directory (the engine resolves them back to
// the same files), keeps absolute ones, and leaves the tuner's cache out.
func TestPortable(t *testing.T) {
	dir := t.TempDir()
	cache := filepath.Join(dir, "usercache", "engine")
	corpus := filepath.Join(dir, "data", "corpus.jsonl")
	rendered := "cache_dir: " + cache + "\ncorpus:\n  path: " + corpus + "\nfusion:\n  k: 40\n"
	prod := filepath.Join(dir, "deploy", "engine.yaml")
	tests := []struct {
		name      string
		relative  []string
		drop      string
		wantPath  string
		wantCache bool
	}{
		{"relative corpus, tuner cache", []string{"corpus.path"}, cache, "path: ../data/corpus.jsonl", false},
		{"absolute corpus", nil, cache, "path: " + corpus, false},
		{"user's own cache", []string{"corpus.path"}, "", "path: ../data/corpus.jsonl", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := embedded.Portable([]byte(rendered), prod, tt.relative, tt.drop)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(out), tt.wantPath) || strings.Contains(string(out), "cache_dir") != tt.wantCache {
				t.Fatalf("got\n%s", out)
			}
			if err := os.MkdirAll(filepath.Dir(prod), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(prod, out, 0o644); err != nil {
				t.Fatal(err)
			}
			cfg, err := engine.LoadConfig(prod)
			if err != nil {
				t.Fatal(err)
			}
			if cfg.Corpus.Path != corpus || cfg.Fusion.K != 40 {
				t.Errorf("the engine reads corpus %q k %v, want %q 40", cfg.Corpus.Path, cfg.Fusion.K, corpus)
			}
		})
	}
}

// TestRelativeCorpusIsTheWorkingDirectorys: a relative Corpus (from
// dataset.corpus) names the working directory's file, not one beside the
// trial's config in the run directory.
func TestRelativeCorpusIsTheWorkingDirectorys(t *testing.T) {
	f := newFactory(t, embedded.Options{Corpus: "testdata/corpus.jsonl"})
	cfg, err := f.Config(nil)
	if err != nil {
		t.Fatal(err)
	}
	if want, _ := filepath.Abs("testdata/corpus.jsonl"); cfg.Corpus.Path != want {
		t.Errorf("corpus.path = %q, want %q", cfg.Corpus.Path, want)
	}
}
