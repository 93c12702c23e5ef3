package embed

import (
	"context"
	"fmt"
	"strconv"
)

// Hash is the hash-<dim> embedder: every lowercased word, wrapped in
// boundary markers ("<word>"), contributes its character 3-, 4- and
// 5-grams (a one-letter word is its single 3-gram "<w>"); each
// n-gram is hashed with 64-bit FNV-1a into one of Dim buckets with a sign
// taken from another bit of the hash, and the sum is L2-normalized. A typo
// changes only the few n-grams that cover it, so misspellings stay close.
// It needs no fitting, is deterministic and safe for concurrent use.
type Hash struct {
	dim int
}

var _ Embedder = (*Hash)(nil)

// Hash n-gram lengths.
const (
	hashMinGram = 3
	hashMaxGram = 5
)

// 64-bit FNV-1a constants (as in hash/fnv, inlined to avoid allocating).
const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

// NewHash returns the hash-<dim> embedder.
func NewHash(dim int) *Hash { return &Hash{dim: dim} }

// Name returns "hash-<dim>".
func (h *Hash) Name() string { return "hash-" + strconv.Itoa(h.dim) }

// Dim returns the vector length.
func (h *Hash) Dim() int { return h.dim }

// EmbedDocuments embeds each text; ids are not used.
func (h *Hash) EmbedDocuments(ctx context.Context, ids, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	err := embedEach(ctx, out, func() func(int) []float32 {
		return func(i int) []float32 { return h.embed(texts[i]) }
	})
	if err != nil {
		return nil, fmt.Errorf("embed: %s: %w", h.Name(), err)
	}
	return out, nil
}

// EmbedQuery embeds one query.
func (h *Hash) EmbedQuery(ctx context.Context, text string) ([]float32, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("embed: %s: %w", h.Name(), err)
	}
	return h.embed(text), nil
}

func (h *Hash) embed(text string) []float32 {
	v := make([]float32, h.dim)
	var buf []byte
	words(text, func(w string) {
		buf = append(append(append(buf[:0], '<'), w...), '>')
		for n := hashMinGram; n <= hashMaxGram; n++ {
			for i := 0; i+n <= len(buf); i++ {
				h.add(v, buf[i:i+n])
			}
		}
	})
	return Normalize(v)
}

func (h *Hash) add(v []float32, gram []byte) {
	x := uint64(fnvOffset)
	for _, c := range gram {
		x ^= uint64(c)
		x *= fnvPrime
	}
	b := (x >> 1) % uint64(h.dim)
	if x&1 == 1 {
		v[b]--
	} else {
		v[b]++
	}
}
