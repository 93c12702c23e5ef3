package corpus_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/backend/corpus"
)

// TestCorpusHashIsLoadCorpusHash checks that hashing a corpus's bytes gives
// the hash a full load gives, for each format and field naming.
func TestCorpusHashIsLoadCorpusHash(t *testing.T) {
	dir := t.TempDir()
	jsonl := filepath.Join(dir, "docs.jsonl")
	if err := os.WriteFile(jsonl, []byte("{\"key\":\"a\",\"body\":\"alpha beta\"}\n{\"key\":\"b\",\"body\":\"gamma\"}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	folder := filepath.Join(dir, "notes")
	if err := os.MkdirAll(folder, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(folder, "one.md"), []byte("# One\nfirst note"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		c    corpus.Config
	}{
		{"beir", corpus.Config{Path: "testdata/tiny/corpus.jsonl", Format: corpus.FormatBEIR}},
		{"default format", corpus.Config{Path: "testdata/tiny/corpus.jsonl"}},
		{"jsonl fields", corpus.Config{Path: jsonl, Format: corpus.FormatJSONL, IDField: "key", TextField: "body"}},
		{"folder", corpus.Config{Path: folder, Format: corpus.FormatDir}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			loaded, err := corpus.Load(tc.c)
			if err != nil {
				t.Fatal(err)
			}
			got, err := corpus.Hash(tc.c)
			if err != nil {
				t.Fatal(err)
			}
			if got != loaded.Hash {
				t.Errorf("Hash = %s, Load's Hash = %s", got, loaded.Hash)
			}
		})
	}
	if _, err := corpus.Hash(corpus.Config{Path: filepath.Join(dir, "absent.jsonl")}); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Hash of a missing file: %v, want a not-exist error", err)
	}
}

// TestCachedChunksFingerprint checks that the kept fingerprint is
// ChunksFingerprint's, that a second call reads no corpus, that chunk
// settings and corpus content key it apart, and that a damaged entry is
// computed again.
func TestCachedChunksFingerprint(t *testing.T) {
	dir, path, data := tinyCorpusCopy(t)
	c := corpus.Config{Path: path, Format: corpus.FormatBEIR}
	cache := filepath.Join(dir, "cache")
	loads := 0
	load := func() (*corpus.Corpus, error) {
		loads++
		return corpus.Load(c)
	}
	want := func(chunk corpus.ChunkConfig) string {
		t.Helper()
		loaded, err := corpus.Load(c)
		if err != nil {
			t.Fatal(err)
		}
		fp, err := corpus.ChunksFingerprint(loaded.Docs, chunk)
		if err != nil {
			t.Fatal(err)
		}
		return fp
	}
	check := func(what string, chunk corpus.ChunkConfig, wantLoads int) {
		t.Helper()
		got, err := corpus.CachedChunksFingerprint(c, chunk, cache, load)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if w := want(chunk); got != w {
			t.Errorf("%s: fingerprint %s, ChunksFingerprint %s", what, got, w)
		}
		if loads != wantLoads {
			t.Errorf("%s: the corpus was read %d times, want %d", what, loads, wantLoads)
		}
	}
	whole, small := corpus.ChunkConfig{}, corpus.ChunkConfig{Size: 8, Overlap: 2}
	check("first", whole, 1)
	check("kept", whole, 1)
	check("other chunk settings", small, 2)
	check("other chunk settings, kept", small, 2)

	entries, err := filepath.Glob(filepath.Join(cache, "chunks-*"))
	if err != nil || len(entries) != 2 {
		t.Fatalf("cache entries %v (%v), want 2", entries, err)
	}
	for _, e := range entries {
		if err := os.WriteFile(e, []byte("not a fingerprint"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	check("damaged entry", whole, 3)
	check("damaged entry, rewritten", whole, 3)

	if err := os.WriteFile(path, append(data, []byte("{\"_id\":\"new\",\"text\":\"one more document\"}\n")...), 0o644); err != nil {
		t.Fatal(err)
	}
	check("changed corpus", whole, 4)
	check("changed corpus, kept", whole, 4)

	got, err := corpus.CachedChunksFingerprint(c, whole, "", load)
	if err != nil || got != want(whole) || loads != 5 {
		t.Errorf("without a cache dir: %s, %v, %d reads; want %s, nil, 5", got, err, loads, want(whole))
	}
}

// TestCachedCorpusIDs checks that the kept ids are LoadIDs',
// computed and then read back (a kept list stands for the corpus: what it
// holds is what is returned); that a damaged entry and a changed corpus
// are read again; and that a corpus that does not load keeps nothing.
func TestCachedCorpusIDs(t *testing.T) {
	dir, path, data := tinyCorpusCopy(t)
	c := corpus.Config{Path: path}
	cache := filepath.Join(dir, "cache")
	ids := func(loaded *corpus.Corpus) []string {
		var out []string
		for _, d := range loaded.Docs {
			if d.Title != "" || d.Text != "" {
				t.Fatalf("document %s has text: ids only", d.ID)
			}
			out = append(out, d.ID)
		}
		return out
	}
	check := func(what string) {
		t.Helper()
		want, err := corpus.LoadIDs(c)
		if err != nil {
			t.Fatal(err)
		}
		for range 2 { // computed, then kept
			got, err := corpus.CachedIDs(c, cache)
			if err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			if !slices.Equal(ids(got), ids(want)) || got.Hash != "" {
				t.Fatalf("%s: ids %v (hash %q), want %v and no hash", what, ids(got), got.Hash, ids(want))
			}
		}
	}
	check("first")
	kept, err := filepath.Glob(filepath.Join(cache, "ids-*"))
	if err != nil || len(kept) != 1 {
		t.Fatalf("kept files %v (%v), want 1", kept, err)
	}
	if err := os.WriteFile(kept[0], []byte(`["stands-for-it"]`), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := corpus.CachedIDs(c, cache); err != nil || !slices.Equal(ids(got), []string{"stands-for-it"}) {
		t.Fatalf("with a kept list: %v (%v), want the list kept", got, err)
	}
	if err := os.WriteFile(kept[0], []byte("[]"), 0o644); err != nil {
		t.Fatal(err)
	}
	check("damaged entry")
	if err := os.WriteFile(path, append(data, []byte("{\"_id\":\"new\",\"text\":\"one more document\"}\n")...), 0o644); err != nil {
		t.Fatal(err)
	}
	check("changed corpus")
	if err := os.WriteFile(path, []byte("{\"_id\":\"a\",\"text\":\"x\"}\n{\"_id\":\"a\",\"text\":\"y\"}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	before, _ := filepath.Glob(filepath.Join(cache, "ids-*"))
	if _, err := corpus.CachedIDs(c, cache); err == nil || !strings.Contains(err.Error(), "duplicate document id") {
		t.Errorf("a corpus with a duplicate id: %v, want LoadIDs' error", err)
	}
	if after, _ := filepath.Glob(filepath.Join(cache, "ids-*")); len(after) != len(before) {
		t.Errorf("a corpus that does not load kept ids: %v", after)
	}
}

// tinyCorpusCopy copies the fixture corpus into a new folder dir and
// returns dir, the copy's path and its bytes.
func tinyCorpusCopy(t *testing.T) (dir, path string, data []byte) {
	t.Helper()
	dir = t.TempDir()
	path = filepath.Join(dir, "corpus.jsonl")
	data, err := os.ReadFile("testdata/tiny/corpus.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, path, data
}
