package engine

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/fusiontune/fusiontune/backend/corpus"
)

// TestBuildLexicalCancelledEarly: a bm25 build cancelled before its first
// batch (the dense side failing first in a side-by-side build) returns the
// cancellation and leaves no index and no temporary directory behind;
// bleve's builder, closed with no segment, used to panic here.
func TestBuildLexicalCancelledEarly(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cache", "bm25-x")
	chunks := []corpus.Chunk{{ID: "d1", Text: "a refracting telescope"}, {ID: "d2", Text: "the moon's phases"}}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := buildLexical(ctx, dir, chunkTexts{chunks: chunks, titles: []string{"", ""}}, DefaultConfig().BM25)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want the cancellation", err)
	}
	left, _ := os.ReadDir(filepath.Dir(dir))
	if len(left) != 0 {
		t.Errorf("left behind: %v", left)
	}
}
