package engine

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/fusiontune/fusiontune/backend/corpus"
)

// TestLexicalFile: two builds of one corpus write the same bytes (the
// parallel analysis merges in chunk order), a reopened index searches as
// the built one, and a damaged or foreign file is refused with an error
// naming it rather than read.
func TestLexicalFile(t *testing.T) {
	chunks, titles := chunksOf(t, corpus.Config{Path: "../../experiments/demo/corpus.jsonl", Format: corpus.FormatBEIR}, 64, 16)
	ctx := context.Background()
	bm := DefaultConfig().BM25
	root := t.TempDir()
	a, b := filepath.Join(root, "a"), filepath.Join(root, "b")
	built, err := buildLexical(ctx, a, chunkTexts{chunks: chunks, titles: titles}, bm)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := buildLexical(ctx, b, chunkTexts{chunks: chunks, titles: titles}, bm); err != nil {
		t.Fatal(err)
	}
	da, _ := os.ReadFile(filepath.Join(a, indexFile))
	db, _ := os.ReadFile(filepath.Join(b, indexFile))
	if len(da) == 0 || !bytes.Equal(da, db) {
		t.Fatalf("two builds wrote different files (%d, %d bytes)", len(da), len(db))
	}
	opened, err := openLexical(a, len(chunks), bm)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"boiler pressure", "thermostat battery replacement"} {
		x, _ := built.search(ctx, q, 50, chunks)
		y, _ := opened.search(ctx, q, 50, chunks)
		if d := diffScored(x, y, chunks); d != "" || len(x) == 0 {
			t.Errorf("query %q: reopened index differs from the built one: %s (%d hits)", q, d, len(x))
		}
	}
	if _, err := openLexical(a, len(chunks)+1, bm); err == nil || !strings.Contains(err.Error(), "holds") {
		t.Errorf("chunk count mismatch: err = %v", err)
	}
	damaged := map[string][]byte{
		"truncated": da[:len(da)/2],
		"flipped":   append(append([]byte{}, da[:100]...), append([]byte{da[100] ^ 1}, da[101:]...)...),
		"foreign":   []byte("not an index at all, but long enough to have a header"),
	}
	for name, data := range damaged {
		dir := filepath.Join(root, name)
		os.MkdirAll(dir, 0o755)
		path := filepath.Join(dir, indexFile)
		os.WriteFile(path, data, 0o644)
		_, err := openLexical(dir, len(chunks), bm)
		if err == nil || errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: err = %v, want an error naming %s", name, err, path)
		}
	}
	if _, err := openLexical(filepath.Join(root, "absent"), len(chunks), bm); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("absent index: err = %v, want not-exist", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := built.search(cctx, "boiler pressure", 10, chunks); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled search: err = %v", err)
	}
}

// TestBuildLexicalConcurrentBuilders: builds of one index into one cache
// directory at once (two tune serve processes starting on one cache) all
// succeed, whichever puts its directory in place first, replace a damaged
// index found there, and leave one whole index and no temporary directory.
func TestBuildLexicalConcurrentBuilders(t *testing.T) {
	chunks, titles := chunksOf(t, corpus.Config{Path: "../../experiments/demo/corpus.jsonl", Format: corpus.FormatBEIR}, 0, 0)
	bm := DefaultConfig().BM25
	root := t.TempDir()
	dir := filepath.Join(root, "bm25-x")
	// A damaged index in place first: the builds replace it.
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, indexFile), []byte("damaged"), 0o644); err != nil {
		t.Fatal(err)
	}
	for round := range 20 {
		var wg sync.WaitGroup
		errs := make([]error, 4)
		for i := range errs {
			wg.Go(func() {
				_, errs[i] = buildLexical(context.Background(), dir, chunkTexts{chunks: chunks, titles: titles}, bm)
			})
		}
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Fatalf("round %d builder %d: %v", round, i, err)
			}
		}
	}
	if _, err := openLexical(dir, len(chunks), bm); err != nil {
		t.Errorf("the index left in place: %v", err)
	}
	left, _ := os.ReadDir(root)
	if len(left) != 1 {
		t.Errorf("left in the cache: %v, want bm25-x alone", left)
	}
}
