package engine

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/backend/fusion"
	"github.com/fusiontune/fusiontune/backend/rerank"
)

// RerankCacheDir is the rerank stage's cache directory under cache_dir.
const RerankCacheDir = "rerank"

// newReranker returns the rerank stage's scorer for cfg.Rerank, its cache
// opened in cache_dir; getenv reads the API key variable.
func newReranker(cfg Config, getenv func(string) string) (*rerank.Scorer, error) {
	r := cfg.Rerank
	c := &rerank.Client{URL: r.URL, Model: r.Model, Format: rerank.Format(r.Format)}
	if r.APIKeyEnv != "" && getenv != nil {
		c.APIKey = getenv(r.APIKeyEnv)
	}
	cache, err := rerank.OpenCache(filepath.Join(cfg.CacheDir, RerankCacheDir))
	if err != nil {
		return nil, err
	}
	return &rerank.Scorer{Client: c, Cache: cache}, nil
}

// rerankDepth is how many fused hits a search of k hits ranks before the
// rerank stage: at least its window, so that the stage sees every hit it
// reorders.
func (e *Engine) rerankDepth(k int) int {
	if e.rr == nil {
		return k
	}
	return max(k, e.cfg.Rerank.EffectiveWindow())
}

// rerankHits applies the rerank stage to hits, the fused ranking best
// first: the first window hits are scored by the reranker (through the
// cache) and reordered by rerank.Rerank's blend, the rest keep their
// order on the window's scale; the first k are returned. Without the
// stage, hits cut at k.
func (e *Engine) rerankHits(ctx context.Context, query string, hits []backend.Hit, k int) ([]backend.Hit, error) {
	if e.rr == nil || len(hits) == 0 {
		return hits[:min(k, len(hits))], nil
	}
	w := min(e.cfg.Rerank.EffectiveWindow(), len(hits))
	docs := make([]string, w)
	for i, h := range hits[:w] {
		docs[i] = e.rerankText(h)
	}
	rr, err := e.rr.Scores(ctx, query, docs)
	if err != nil {
		return nil, fmt.Errorf("rerank stage: %w", err)
	}
	fused := make([]float64, len(hits))
	for i, h := range hits {
		fused[i] = h.Score
	}
	order, scores, err := rerank.Rerank(fused, rr, e.cfg.Rerank.EffectiveWeight())
	if err != nil {
		return nil, err
	}
	out := make([]backend.Hit, min(k, len(hits)))
	for i := range out {
		out[i] = hits[order[i]]
		out[i].Score = scores[i]
	}
	return out, nil
}

// rerankCandidates returns the reranker's score of every candidate of
// lists by candidate id: what rerankHits would read for a hit standing
// for that candidate, whatever fusion ranks it, so that a replay of any
// fusion and window reranks as the stage does. One request for the pairs
// the cache lacks.
func (e *Engine) rerankCandidates(ctx context.Context, query string, lists map[string][]fusion.Candidate) (map[string]float64, error) {
	names := make([]string, 0, len(lists))
	for name := range lists {
		names = append(names, name)
	}
	sort.Strings(names)
	var ids, docs []string
	seen := map[string]bool{}
	for _, name := range names {
		for _, c := range lists[name] {
			if seen[c.ID] {
				continue
			}
			seen[c.ID] = true
			ids = append(ids, c.ID)
			docs = append(docs, e.rerankText(backend.Hit{DocID: c.DocID, ChunkID: c.ID}))
		}
	}
	scores, err := e.rr.Scores(ctx, query, docs)
	if err != nil {
		return nil, fmt.Errorf("rerank stage: %w", err)
	}
	out := make(map[string]float64, len(ids))
	for i, id := range ids {
		out[id] = scores[i]
	}
	return out, nil
}

// rerankText is the text the reranker reads for h: its chunk's text
// (the whole document's without chunking), after the document's title
// and a blank line when it has one.
func (e *Engine) rerankText(h backend.Hit) string {
	i, ok := e.chunkIndex(h.ChunkID)
	if !ok {
		if i, ok = e.chunkIndex(h.DocID); !ok {
			return h.DocID
		}
	}
	if t := e.titles[i]; t != "" {
		return t + "\n\n" + e.chunks[i].Text
	}
	return e.chunks[i].Text
}

// RerankSent returns how many (query, document) pairs the engine's rerank
// stage sent to the reranker (not found in its cache) since New; 0 when
// the stage is off.
func (e *Engine) RerankSent() int64 {
	if e.rr == nil {
		return 0
	}
	return e.rr.Sent()
}
