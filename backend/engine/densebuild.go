package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/fusiontune/fusiontune/backend/embed"
)

// embedBatch is the number of chunks per EmbedDocuments call.
const embedBatch = 256

// newEmbedder builds the embedder named by c.Model.
func newEmbedder(c DenseConfig, getenv func(string) string) (embed.Embedder, error) {
	return nil, errors.New("backend/embed has no constructor yet")
}

// buildDense fits the embedder when it learns from the corpus, then loads
// the chunk vectors from the cache or computes and caches them.
func (e *Engine) buildDense(ctx context.Context) error {
	texts := make([]string, len(e.chunks))
	ids := make([]string, len(e.chunks))
	for i, c := range e.chunks {
		texts[i] = indexText(e.titles[i], c.Text)
		ids[i] = c.ID
	}
	if f, ok := e.emb.(embed.Fitter); ok {
		if err := f.Fit(ctx, texts); err != nil {
			return fmt.Errorf("dense: fit %s: %w", e.emb.Name(), err)
		}
	}
	dim := e.emb.Dim()
	file := filepath.Join(e.cfg.CacheDir, "dense-"+e.cacheKey("dense", e.emb.Name(), e.cfg.Dense.BaseURL), "vectors.f32")
	e.stats.DenseCacheFile = file
	v, err := loadVectors(file, len(e.chunks), dim)
	if err == nil {
		e.vec, e.stats.DenseCached = v, true
		return nil
	}
	if !errors.Is(err, os.ErrNotExist) {
		e.log.Warn("recomputing embeddings", "reason", err)
	}
	rows := make([][]float32, 0, len(texts))
	for i := 0; i < len(texts); i += embedBatch {
		j := min(i+embedBatch, len(texts))
		vs, err := e.emb.EmbedDocuments(ctx, ids[i:j], texts[i:j])
		if err != nil {
			return fmt.Errorf("dense: embed chunks %d-%d with %s: %w", i, j-1, e.emb.Name(), err)
		}
		if len(vs) != j-i {
			return fmt.Errorf("dense: %s returned %d vectors for %d chunks", e.emb.Name(), len(vs), j-i)
		}
		rows = append(rows, vs...)
	}
	if e.vec, err = newVectors(rows, dim); err != nil {
		return err
	}
	if err := e.vec.save(file); err != nil {
		e.log.Warn("embedding cache not written", "err", err)
	}
	return nil
}
