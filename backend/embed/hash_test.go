package embed_test

import (
	"context"
	"slices"
	"strconv"
	"testing"

	"github.com/fusiontune/fusiontune/backend/embed"
)

func TestHashTypos(t *testing.T) {
	e := embed.NewHash(256)
	tests := []struct{ word, typo, unrelated string }{
		{"retrieval", "retreival", "banana"},
		{"embedding", "embeding", "tomato"},
		{"hybrid search", "hybird search", "chocolate cake"},
		{"normalization", "normalisation", "volcano"},
	}
	for _, tt := range tests {
		t.Run(tt.word, func(t *testing.T) {
			w := query(t, e, tt.word)
			typo, other := embed.Cosine(w, query(t, e, tt.typo)), embed.Cosine(w, query(t, e, tt.unrelated))
			t.Logf("cos(%q, %q) = %.3f; cos(%q, %q) = %.3f", tt.word, tt.typo, typo, tt.word, tt.unrelated, other)
			if typo <= other+0.2 {
				t.Errorf("the typo is not much closer than the unrelated word: %.3f vs %.3f", typo, other)
			}
		})
	}
}

func TestHashShape(t *testing.T) {
	texts := []string{"Hello, World!", "a", "Ünïcödé wörds 123", "retrieval-augmented generation"}
	for _, dim := range []int{1, 7, 64, 512} {
		e := embed.NewHash(dim)
		if e.Dim() != dim || e.Name() != "hash-"+strconv.Itoa(dim) {
			t.Errorf("Dim %d Name %q", e.Dim(), e.Name())
		}
		vecs := embedAll(t, e, texts)
		again := embedAll(t, embed.NewHash(dim), texts)
		for i, v := range vecs {
			if len(v) != dim {
				t.Fatalf("dim %d: vector %d has %d dimensions", dim, i, len(v))
			}
			if n := embed.Cosine(v, v); dim > 1 && (n < 0.9999 || n > 1.0001) {
				t.Errorf("dim %d: vector %d squared norm %v", dim, i, n)
			}
			if !slices.Equal(v, again[i]) {
				t.Errorf("dim %d: vector %d differs between runs", dim, i)
			}
		}
	}
	if v := query(t, embed.NewHash(16), " ,.; "); slices.ContainsFunc(v, func(x float32) bool { return x != 0 }) {
		t.Errorf("text without words: %v, want the zero vector", v)
	}
	if !slices.Equal(query(t, embed.NewHash(64), "search"), query(t, embed.NewHash(64), "Search")) {
		t.Error("case changes the vector")
	}
}

func TestHashCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := embed.NewHash(8).EmbedQuery(ctx, "x"); err == nil {
		t.Error("EmbedQuery ignored a canceled context")
	}
	if _, err := embed.NewHash(8).EmbedDocuments(ctx, nil, []string{"x"}); err == nil {
		t.Error("EmbedDocuments ignored a canceled context")
	}
}
