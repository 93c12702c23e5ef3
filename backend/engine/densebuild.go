package engine

import (
	"context"
	"encoding"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/fusiontune/fusiontune/internal/atomicfile"

	"github.com/fusiontune/fusiontune/backend/embed"
)

// embedBatch is the number of chunks per EmbedDocuments call.
const embedBatch = 256

// newEmbedder builds the embedder named by c.Model, an openai one with the
// key getenv (nil: none) reads from c.APIKeyEnv.
func newEmbedder(c DenseConfig, getenv func(string) string) (embed.Embedder, error) {
	opts := embed.Options{BaseURL: c.BaseURL}
	if r := c.MaxRetries; r != nil {
		opts.MaxRetries = *r
		if *r == 0 {
			opts.MaxRetries = -1 // embed.Options: negative is none, 0 the default
		}
	}
	if strings.HasPrefix(c.Model, "openai:") && c.APIKeyEnv != "" && getenv != nil {
		opts.APIKey = getenv(c.APIKeyEnv)
	}
	return embed.New(c.Model, opts)
}

// probeEmbedder embeds one query with embedders that call a server, so an
// unreachable server fails the build with a clear error at once.
func probeEmbedder(ctx context.Context, emb embed.Embedder, baseURL string) error {
	if !strings.HasPrefix(emb.Name(), "openai:") {
		return nil
	}
	if _, err := emb.EmbedQuery(ctx, "health check"); err != nil {
		return fmt.Errorf("dense: embedding server %s (model %s) unusable: %w", baseURL, emb.Name(), err)
	}
	return nil
}

// fitOrLoad restores a corpus-fitted model from the cache, or fits it and
// caches it. A FitEmbedder fitting returns the texts' vectors too (nil
// otherwise). The fit reads the texts one at a time: they are never held
// as a whole.
func (e *Engine) fitOrLoad(ctx context.Context, f embed.Fitter, src chunkTexts, dir string) ([][]float32, error) {
	file := filepath.Join(dir, modelFile)
	if u, ok := f.(encoding.BinaryUnmarshaler); ok {
		if data, err := os.ReadFile(file); err == nil {
			if err := u.UnmarshalBinary(data); err == nil {
				e.stats.ModelCached = true
				return nil, nil
			} else {
				e.log.Warn("refitting embedder", "reason", err)
			}
		}
	}
	var rows [][]float32
	var err error
	if fe, ok := f.(embed.FitEmbedder); ok {
		rows, err = fe.FitEmbed(ctx, src)
	} else {
		err = f.Fit(ctx, src)
	}
	if err != nil {
		return nil, fmt.Errorf("dense: fit %s: %w", e.emb.Name(), err)
	}
	if m, ok := f.(encoding.BinaryMarshaler); ok {
		data, err := m.MarshalBinary()
		if err == nil {
			err = writeFileAtomic(file, data)
		}
		if err != nil {
			e.log.Warn("embedder model not cached", "err", err)
		}
	}
	return rows, nil
}

// modelFile is the name of a fitted embedder's model in its cache
// directory.
const modelFile = "model.bin"

// denseDir is the cache directory of the dense index: the embedder's
// model and the chunk vectors.
func (e *Engine) denseDir() string {
	return filepath.Join(e.cfg.CacheDir, "dense-"+e.cacheKey("dense", e.emb.Name(), e.cfg.Dense.BaseURL))
}

// fitsCorpus reports whether building the dense index fits the embedder
// on the corpus: it learns from it and no model of it is cached.
func (e *Engine) fitsCorpus() bool {
	if _, ok := e.emb.(embed.Fitter); !ok {
		return false
	}
	fi, err := os.Stat(filepath.Join(e.denseDir(), modelFile))
	return err != nil || !fi.Mode().IsRegular()
}

// writeFileAtomic writes data to a temporary file beside path (never in
// os.TempDir, which may be another filesystem) renamed over path.
func writeFileAtomic(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return atomicfile.Replace(path, data, 0o644)
}

// buildDense fits the embedder when it learns from the corpus, then loads
// the chunk vectors from the cache or computes and caches them.
// src gives the chunks' indexed texts.
func (e *Engine) buildDense(ctx context.Context, src chunkTexts) error {
	ids := make([]string, len(e.chunks))
	for i, c := range e.chunks {
		ids[i] = c.ID
	}
	if err := probeEmbedder(ctx, e.emb, e.cfg.Dense.BaseURL); err != nil {
		return err
	}
	dir := e.denseDir()
	var fitted [][]float32 // the texts' vectors, when fitting gave them
	if f, ok := e.emb.(embed.Fitter); ok {
		var err error
		if fitted, err = e.fitOrLoad(ctx, f, src, dir); err != nil {
			return err
		}
	}
	dim := e.emb.Dim()
	file := filepath.Join(dir, "vectors.f32")
	e.stats.DenseCacheFile = file
	v, err := loadVectors(file, len(e.chunks), dim)
	if err == nil {
		e.vec, e.stats.DenseCached = v, true
		return nil
	}
	if !errors.Is(err, os.ErrNotExist) {
		e.log.Warn("recomputing embeddings", "reason", err)
	}
	rows := fitted
	// Each batch's texts are made for its call alone.
	for i := len(rows); i < src.Len(); i += embedBatch {
		j := min(i+embedBatch, src.Len())
		vs, err := e.emb.EmbedDocuments(ctx, ids[i:j], src.texts(i, j))
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
