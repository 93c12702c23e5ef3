package engine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/document"
	"github.com/blevesearch/bleve/v2/index/scorch"
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

// batchSize is the number of chunks per bleve batch when indexing.
const batchSize = 512

// lexical is the BM25 retriever over a bleve scorch index.
type lexical struct {
	idx      bleve.Index
	analyzer analysis.Analyzer
	chunkOf  map[string]int // chunk id -> index in Engine.chunks
}

func newIndexMapping() *mapping.IndexMappingImpl {
	m := bleve.NewIndexMapping()
	m.DefaultAnalyzer = Analyzer
	m.ScoringModel = index.BM25Scoring
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

// buildLexical indexes chunks into a new scorch index at dir (in memory
// when dir is empty), in parallel batches. On disk, the index is built in a
// temporary directory and renamed into place once complete.
func buildLexical(ctx context.Context, dir string, chunks []Chunk, titles []string, chunkOf map[string]int) (*lexical, error) {
	m := newIndexMapping()
	an := m.AnalyzerNamed(Analyzer)
	if an == nil {
		return nil, fmt.Errorf("bm25 index: analyzer %q not registered", Analyzer)
	}
	tmp := ""
	if dir != "" {
		if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
			return nil, fmt.Errorf("bm25 index: %w", err)
		}
		var err error
		tmp, err = os.MkdirTemp(filepath.Dir(dir), filepath.Base(dir)+".tmp-")
		if err != nil {
			return nil, fmt.Errorf("bm25 index: %w", err)
		}
		os.Remove(tmp) // bleve wants to create it
		defer os.RemoveAll(tmp)
	}
	idx, err := bleve.NewUsing(tmp, m, scorch.Name, scorch.Name, map[string]any{"unsafe_batch": true})
	if err != nil {
		return nil, fmt.Errorf("bm25 index: %w", err)
	}
	workers := max(1, runtime.GOMAXPROCS(0))
	jobs := make(chan [2]int)
	errs := make(chan error, workers)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				b := idx.NewBatch()
				for i := j[0]; i < j[1]; i++ {
					doc := document.NewDocument(chunks[i].ID)
					doc.AddField(document.NewTextFieldCustom(bodyField, nil, []byte(indexText(titles[i], chunks[i].Text)), index.IndexField, an))
					if err := b.IndexAdvanced(doc); err != nil {
						errs <- err
						return
					}
				}
				if err := idx.Batch(b); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	var sendErr error
send:
	for i := 0; i < len(chunks); i += batchSize {
		select {
		case jobs <- [2]int{i, min(i+batchSize, len(chunks))}:
		case err := <-errs:
			sendErr = err
			break send
		case <-ctx.Done():
			sendErr = ctx.Err()
			break send
		}
	}
	close(jobs)
	wg.Wait()
	if sendErr == nil {
		select {
		case sendErr = <-errs:
		default:
		}
	}
	if sendErr != nil {
		idx.Close()
		return nil, fmt.Errorf("bm25 index: %w", sendErr)
	}
	if dir != "" {
		if err := idx.Close(); err != nil {
			return nil, fmt.Errorf("bm25 index: %w", err)
		}
		os.RemoveAll(dir)
		if err := os.Rename(tmp, dir); err != nil {
			return nil, fmt.Errorf("bm25 index: %w", err)
		}
		return openLexical(dir, len(chunks), chunkOf)
	}
	return &lexical{idx: idx, analyzer: an, chunkOf: chunkOf}, nil
}

// openLexical opens an index built by buildLexical.
func openLexical(dir string, n int, chunkOf map[string]int) (*lexical, error) {
	if _, err := os.Stat(dir); err != nil {
		return nil, err
	}
	idx, err := bleve.Open(dir)
	if err != nil {
		return nil, fmt.Errorf("bm25 index: open %s: %w", dir, err)
	}
	got, err := idx.DocCount()
	if err != nil || got != uint64(n) {
		idx.Close()
		return nil, fmt.Errorf("bm25 index: %s holds %d chunks, want %d (%v)", dir, got, n, err)
	}
	return &lexical{idx: idx, analyzer: newIndexMapping().AnalyzerNamed(Analyzer), chunkOf: chunkOf}, nil
}

func indexText(title, text string) string {
	if title == "" {
		return text
	}
	return title + "\n\n" + text
}

// search returns up to depth chunk indexes and BM25 scores, best first,
// ties by chunk id.
func (l *lexical) search(ctx context.Context, query string, depth int) ([]scored, error) {
	q := bleve.NewMatchQuery(query)
	q.SetField(bodyField)
	q.Analyzer = Analyzer
	req := bleve.NewSearchRequestOptions(q, depth, 0, false)
	req.SortBy([]string{"-_score", "_id"})
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
		out = append(out, scored{idx: i, score: h.Score})
	}
	return out, nil
}

func (l *lexical) close() error { return l.idx.Close() }

// scored is a chunk index with a retriever score.
type scored struct {
	idx   int
	score float64
}

// candidates turns a retriever's scored chunks into the fusion candidate
// list, dropping those below minScore (when set) and ranking from 1.
func candidates(list []scored, chunks []Chunk, minScore *float64) []fusion.Candidate {
	out := make([]fusion.Candidate, 0, len(list))
	for _, s := range list {
		if minScore != nil && s.score < *minScore {
			continue
		}
		c := chunks[s.idx]
		out = append(out, fusion.Candidate{ID: c.ID, DocID: c.DocID, Score: s.score, Rank: len(out) + 1})
	}
	return out
}
