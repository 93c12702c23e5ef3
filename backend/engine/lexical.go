package engine

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"sync"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search"
	index "github.com/blevesearch/bleve_index_api"

	"github.com/fusiontune/fusiontune/backend/fusion"
)

// Analyzer is the bleve analyzer of the lexical index: Unicode tokens,
// possessive removal, lower case, English stop words, Porter stemming. It
// keys the index cache.
const Analyzer = en.AnalyzerName

// bodyField is the one indexed field: a chunk's document title, a blank
// line, and the chunk's text.
const bodyField = "body"

// builderBatch is the number of chunks per segment of the offline builder
// before its final merge.
const builderBatch = 1000

// lexical is the BM25 retriever over a bleve scorch index.
type lexical struct {
	idx      bleve.Index
	analyzer analysis.Analyzer
	chunkOf  map[string]int // chunk id -> index in Engine.chunks
	ids      []string       // chunk index -> chunk id
}

func newIndexMapping() *mapping.IndexMappingImpl {
	m := bleve.NewIndexMapping()
	m.DefaultAnalyzer = Analyzer
	m.ScoringModel = index.BM25Scoring
	body := bleve.NewTextFieldMapping()
	body.Analyzer = Analyzer
	body.Store = false
	body.IncludeTermVectors = false
	body.IncludeInAll = false
	body.DocValues = false
	m.DefaultMapping.AddFieldMappingsAt(bodyField, body)
	m.DefaultMapping.Dynamic = false
	m.StoreDynamic = false
	m.IndexDynamic = false
	m.DocValuesDynamic = false
	return m
}

// bm25Mu guards writes of bleve's process-wide BM25 parameters.
var bm25Mu sync.Mutex

// setBM25 sets bleve's BM25 k1 and b. bleve v2.5.7 keeps them in package
// variables read at query time, shared by every index of the process.
func setBM25(k1, b float64) {
	bm25Mu.Lock()
	defer bm25Mu.Unlock()
	if search.BM25_k1 != k1 {
		search.BM25_k1 = k1
	}
	if search.BM25_b != b {
		search.BM25_b = b
	}
}

// buildLexical indexes chunks, in corpus order, into a single-segment
// scorch index at dir with bleve's offline builder, in a temporary
// directory renamed into place once complete. One segment built in a fixed
// order makes BM25 statistics and score sums identical on every build; the
// online writer's background merges made them vary between builds.
func buildLexical(ctx context.Context, dir string, chunks []Chunk, titles []string, chunkOf map[string]int) (*lexical, error) {
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return nil, fmt.Errorf("bm25 index: %w", err)
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), filepath.Base(dir)+".tmp-")
	if err != nil {
		return nil, fmt.Errorf("bm25 index: %w", err)
	}
	defer os.RemoveAll(tmp)
	// The builder's segments go beside the index too (bleve's default is
	// os.TempDir): it renames them into place, which fails across
	// filesystems ("invalid cross-device link") when the cache is on
	// another one than the temp dir.
	b, err := bleve.NewBuilder(tmp, newIndexMapping(), map[string]any{"batchSize": builderBatch, "buildPathPrefix": tmp})
	if err != nil {
		return nil, fmt.Errorf("bm25 index: %w", err)
	}
	// A build given up is not closed: Close merges the segments written so
	// far into the final one (wasted work), and bleve v2.5.7's Close
	// panics on a builder that holds no segment yet (a build cancelled
	// before its first batch, as when the dense side fails first). The
	// temporary directory, segments included, is removed above.
	for i, c := range chunks {
		if i%builderBatch == 0 && ctx.Err() != nil {
			return nil, fmt.Errorf("bm25 index: %w", ctx.Err())
		}
		if err := b.Index(c.ID, map[string]any{bodyField: indexText(titles[i], c.Text)}); err != nil {
			return nil, fmt.Errorf("bm25 index: chunk %q: %w", c.ID, err)
		}
	}
	if err := b.Close(); err != nil {
		return nil, fmt.Errorf("bm25 index: %w", err)
	}
	os.RemoveAll(dir)
	if err := os.Rename(tmp, dir); err != nil {
		return nil, fmt.Errorf("bm25 index: %w", err)
	}
	ids := make([]string, len(chunks))
	for i, c := range chunks {
		ids[i] = c.ID
	}
	return openLexical(dir, ids, chunkOf)
}

// openLexical opens an index built by buildLexical.
func openLexical(dir string, ids []string, chunkOf map[string]int) (*lexical, error) {
	n := len(ids)
	if _, err := os.Stat(dir); err != nil {
		return nil, err
	}
	// Read-only: several engines (and processes) can share a cached index,
	// and bolt's lock wait is bounded instead of hanging.
	idx, err := bleve.OpenUsing(dir, map[string]any{"read_only": true, "bolt_timeout": "5s"})
	if err != nil {
		return nil, fmt.Errorf("bm25 index: open %s: %w", dir, err)
	}
	got, err := idx.DocCount()
	if err != nil || got != uint64(n) {
		idx.Close()
		return nil, fmt.Errorf("bm25 index: %s holds %d chunks, want %d (%v)", dir, got, n, err)
	}
	return &lexical{idx: idx, analyzer: newIndexMapping().AnalyzerNamed(Analyzer), chunkOf: chunkOf, ids: ids}, nil
}

func indexText(title, text string) string {
	if title == "" {
		return text
	}
	return title + "\n\n" + text
}

// search returns up to depth chunk indexes and BM25 scores, best first,
// ties by the fusion tie rule (see rankedBefore).
func (l *lexical) search(ctx context.Context, query string, depth int, chunks []Chunk) ([]scored, error) {
	q := bleve.NewMatchQuery(query)
	q.SetField(bodyField)
	q.Analyzer = Analyzer
	// Sorting by score alone (bleve breaks ties by internal number) is
	// cheaper than adding "_id", which loads every compared hit's id; a
	// margin of extra hits lets the id tie-break below be exact unless more
	// than tieMargin hits tie at the cut.
	req := bleve.NewSearchRequestOptions(q, depth+tieMargin, 0, false)
	res, err := l.idx.SearchInContext(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("bm25 search: %w", err)
	}
	out := make([]scored, 0, len(res.Hits))
	for _, h := range res.Hits {
		i, ok := l.chunkOf[h.ID]
		if !ok {
			return nil, fmt.Errorf("bm25 search: index returned unknown chunk %q", h.ID)
		}
		out = append(out, scored{idx: i, score: roundScore(h.Score)})
	}
	// bleve may sum a document's term scores in a different order from one
	// search to the next, changing the last bits; rounded scores with ties
	// broken by id rank identically every time.
	sort.Slice(out, func(a, b int) bool { return rankedBefore(chunks, out[a], out[b]) })
	return out[:min(depth, len(out))], nil
}

// tieMargin is the number of hits fetched beyond the depth so that ties at
// the cut break by id.
const tieMargin = 10

// roundScore rounds a BM25 score to 1e-9, below any meaningful difference
// and above floating-point summation noise.
func roundScore(s float64) float64 { return math.Round(s*1e9) / 1e9 }

func (l *lexical) close() error { return l.idx.Close() }

// scored is a chunk index with a retriever score.
type scored struct {
	idx   int
	score float64
}

// rankedBefore reports whether a ranks above b in a retriever's list: the
// higher score first; equal scores break by document id descending, then
// by chunk id descending. That is the fusion tie rule (fusion.TieRule,
// trec_eval's order of tied scores), so a run file of one retriever's
// scores evaluates in the order fusion ranked it.
func rankedBefore(chunks []Chunk, a, b scored) bool {
	if a.score != b.score {
		return a.score > b.score
	}
	ca, cb := &chunks[a.idx], &chunks[b.idx]
	if ca.DocID != cb.DocID {
		return ca.DocID > cb.DocID
	}
	return ca.ID > cb.ID
}

// candidates turns a retriever's scored chunks into the fusion candidate
// list, ranking from 1 (the floors apply at fusion: fusion.Settings).
func candidates(list []scored, chunks []Chunk) []fusion.Candidate {
	out := make([]fusion.Candidate, 0, len(list))
	for _, s := range list {
		c := chunks[s.idx]
		out = append(out, fusion.Candidate{ID: c.ID, DocID: c.DocID, Score: s.score, Rank: len(out) + 1})
	}
	return out
}
