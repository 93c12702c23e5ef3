package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/backend/corpus"
	"github.com/fusiontune/fusiontune/backend/embed"
	"github.com/fusiontune/fusiontune/backend/fusion"
	"github.com/fusiontune/fusiontune/backend/rerank"
)

// ErrNotReady is returned by Ready and Search while the engine is still
// loading or indexing.
var ErrNotReady = errors.New("engine: not ready (indexing)")

// ErrInvalidRequest marks a search request the engine rejects (empty
// query, bad k, bad fusion override); Server answers it with HTTP 400.
var ErrInvalidRequest = errors.New("invalid search request")

// Options are the engine's run-time dependencies.
type Options struct {
	// Logger receives progress (loading, indexing, cache hits); nil
	// discards it.
	Logger *slog.Logger
	// Getenv reads the API key variable of openai embedders (the command
	// layer passes os.Getenv); nil reads none: the key is empty.
	Getenv func(string) string
}

// Engine is the embedded hybrid search engine. New checks the
// configuration and the embedder, Build loads and indexes the corpus; after
// that Search is safe for concurrent use.
type Engine struct {
	cfg      Config
	settings fusion.Settings // cfg.FusionSettings(): what every request ranks under
	// policy, when fusion.policy names one, chooses the settings of every
	// request without a fusion override (see Search).
	policy *fusion.Policy
	log    *slog.Logger
	emb    embed.Embedder // nil without the dense retriever
	// rr scores the rerank stage's hits through its cache; nil when the
	// stage is off.
	rr *rerank.Scorer

	mu        sync.RWMutex
	ready     bool
	buildErr  error
	closeOnce sync.Once
	closeErr  error

	docs    []corpus.Document
	chunks  []corpus.Chunk
	titles  []string       // per chunk: its document's title
	chunkOf map[string]int // chunk id -> index in chunks
	hash    string
	lex     *lexical
	vec     *vectors
	// searches counts the searches running now (see Search).
	searches atomic.Int32

	// Timings of the last Build, for logs and benchmarks.
	stats BuildStats
}

// BuildStats reports what Build did.
type BuildStats struct {
	Docs, Chunks   int
	LexicalCached  bool // the bm25 index came from the cache
	DenseCached    bool // the vectors came from the cache
	ModelCached    bool // the fitted embedder model came from the cache
	Load, Lexical  time.Duration
	Dense, Total   time.Duration
	LexicalDir     string // on-disk index directory
	DenseCacheFile string // vector cache file; empty without dense
}

var _ backend.Searcher = (*Engine)(nil)

// New validates cfg and builds the embedder it names, so an unknown
// embedder fails here, before anything is served. Call Build next.
func New(cfg Config, opts Options) (*Engine, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	e := &Engine{cfg: cfg, settings: cfg.FusionSettings(), log: opts.Logger}
	if e.log == nil {
		e.log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if cfg.Fusion.Policy != "" {
		p, err := loadPolicy(cfg)
		if err != nil {
			return nil, err
		}
		e.policy = p
	}
	if cfg.Has(Dense) {
		emb, err := newEmbedder(cfg.Dense, opts.Getenv)
		if err != nil {
			return nil, fmt.Errorf("dense.model %q: %w", cfg.Dense.Model, err)
		}
		e.emb = emb
	}
	if cfg.Rerank.On() {
		rr, err := newReranker(cfg, opts.Getenv)
		if err != nil {
			return nil, err
		}
		e.rr = rr
	}
	return e, nil
}

// Config returns the engine's configuration.
func (e *Engine) Config() Config { return e.cfg }

// Build loads the corpus, chunks it and builds (or reopens from the cache)
// the indexes. It runs once; Ready reports its outcome.
func (e *Engine) Build(ctx context.Context) (err error) {
	defer func() {
		e.mu.Lock()
		e.ready, e.buildErr = err == nil, err
		e.mu.Unlock()
	}()
	start := time.Now()
	loaded, err := corpus.Load(e.cfg.Corpus)
	if err != nil {
		return err
	}
	chunks, err := corpus.ChunkDocuments(loaded.Docs, e.cfg.Chunk.Size, e.cfg.Chunk.Overlap)
	if err != nil {
		return err
	}
	titles := make([]string, len(chunks))
	chunkOf := make(map[string]int, len(chunks))
	di := 0
	for i, c := range chunks {
		if _, dup := chunkOf[c.ID]; dup {
			return fmt.Errorf("chunk id %q is not unique: a document id collides with a chunk id (ids of the form doc%sN are reserved when chunking)", c.ID, corpus.ChunkSeparator)
		}
		chunkOf[c.ID] = i
		for loaded.Docs[di].ID != c.DocID {
			di++
		}
		titles[i] = loaded.Docs[di].Title
	}
	e.docs, e.chunks, e.titles, e.chunkOf, e.hash = loaded.Docs, chunks, titles, chunkOf, loaded.Hash
	e.stats = BuildStats{Docs: len(loaded.Docs), Chunks: len(chunks), Load: time.Since(start)}
	e.log.Info("corpus loaded", "docs", len(loaded.Docs), "chunks", len(chunks), "elapsed", e.stats.Load.Round(time.Millisecond))

	// Each retriever's build runs on every core. Fitting an embedder on the
	// corpus (lsa-<dim> without a cached model) has the largest working set
	// of the build, the document-term matrix and the randomized SVD's
	// blocks, so it starts once the bm25 index is built and the two working
	// sets never add up (about half a gigabyte less at the peak of a million
	// documents, for the same CPU time). Otherwise the dense side loads or
	// embeds (a server's embedder) while bm25 builds.
	fits := e.cfg.Has(Dense) && e.fitsCorpus()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	var lexErr, denseErr error
	// The indexed texts are made as each side reads them, not held.
	texts := chunkTexts{chunks: e.chunks, titles: e.titles}
	if e.cfg.Has(BM25) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if lexErr = e.buildBM25(ctx, texts); lexErr != nil {
				cancel()
			}
		}()
	}
	if fits {
		if wg.Wait(); lexErr != nil {
			return lexErr
		}
		beforeFit(!e.stats.LexicalCached)
	}
	if e.cfg.Has(Dense) {
		t := time.Now()
		if denseErr = e.buildDense(ctx, texts); denseErr != nil {
			cancel()
		} else {
			e.stats.Dense = time.Since(t)
			e.log.Info("dense index ready", "model", e.emb.Name(), "cached", e.stats.DenseCached, "elapsed", e.stats.Dense.Round(time.Millisecond))
		}
	}
	wg.Wait()
	// The first failure, not the cancellation it caused in the other.
	if lexErr != nil && (denseErr == nil || !errors.Is(lexErr, context.Canceled) || errors.Is(denseErr, context.Canceled)) {
		return lexErr
	}
	if denseErr != nil {
		return denseErr
	}
	e.stats.Total = time.Since(start)
	return nil
}

// buildBM25 opens the cached bm25 index or builds it.
func (e *Engine) buildBM25(ctx context.Context, texts chunkTexts) (err error) {
	t := time.Now()
	dir := filepath.Join(e.cfg.CacheDir, "bm25-"+e.cacheKey("bm25", Analyzer, indexFormat))
	e.stats.LexicalDir = dir
	if e.lex, err = openLexical(dir, len(e.chunks), e.cfg.BM25); err == nil {
		e.stats.LexicalCached = true
	} else {
		if !errors.Is(err, os.ErrNotExist) {
			e.log.Warn("rebuilding bm25 index", "reason", err)
		}
		if e.lex, err = buildLexical(ctx, dir, texts, e.cfg.BM25); err != nil {
			return err
		}
	}
	e.stats.Lexical = time.Since(t)
	e.log.Info("bm25 index ready", "cached", e.stats.LexicalCached, "dir", dir, "elapsed", e.stats.Lexical.Round(time.Millisecond))
	return nil
}

// cacheKey hashes the corpus content, the chunking and parts into a short
// hex key for a cache directory.
func (e *Engine) cacheKey(parts ...string) string {
	return corpus.CacheKey(e.hash, e.cfg.Chunk, parts...)
}

// Stats returns what the last Build did.
func (e *Engine) Stats() BuildStats { return e.stats }

// Ready returns nil once Build has succeeded, ErrNotReady while it runs,
// and Build's error after it failed.
func (e *Engine) Ready(context.Context) error {
	e.mu.RLock()
	defer e.mu.RUnlock()
	switch {
	case e.ready:
		return nil
	case e.buildErr != nil:
		return fmt.Errorf("engine: build failed: %w", e.buildErr)
	default:
		return ErrNotReady
	}
}

// Documents returns the corpus documents (nil before Build); callers must
// not modify them. Golden-set resolvers use them to locate passages.
func (e *Engine) Documents() []corpus.Document { return e.docs }

// Chunks returns the chunks the retrievers rank, in corpus order (nil
// before Build); callers must not modify them.
func (e *Engine) Chunks() []corpus.Chunk { return e.chunks }

// Close releases the index. Calling it again does nothing.
func (e *Engine) Close() error {
	e.closeOnce.Do(func() {
		e.mu.Lock()
		defer e.mu.Unlock()
		if e.lex != nil {
			e.closeErr = e.lex.close()
		}
		if e.rr != nil && e.rr.Cache != nil {
			e.closeErr = errors.Join(e.closeErr, e.rr.Cache.Close())
		}
		e.ready = false
		if e.buildErr == nil {
			e.buildErr = errors.New("engine closed")
		}
	})
	return e.closeErr
}
