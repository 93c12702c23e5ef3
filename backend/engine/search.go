package engine

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"time"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/backend/corpus"
	"github.com/fusiontune/fusiontune/backend/fusion"
)

// Routing labels of a search response (fusion.Routing sets them).
const (
	RoutingSearch    = fusion.RoutingSearch    // hits passed the thresholds
	RoutingNoResults = fusion.RoutingNoResults // nothing passed: the query is off-topic
)

// excerptRunes bounds the Text of a hit.
const excerptRunes = 240

// MaxVariants bounds the fusion variants of one request.
const MaxVariants = 64

// Search runs req: each enabled retriever returns its candidates (up to the
// fusion depth), fusion merges them under the configured settings
// (fusion.Settings: each list cut at its retriever's min_score floor,
// per-request fusion settings overriding the configured ones), hits below
// min_score are dropped and the first k are returned. With Explain the
// response carries the candidate lists as retrieved, before the floors:
// the tuner's replay applies a trial's floors to them as the engine does.
// With Timings the response carries the per-stage timings. With the
// rerank stage on, hits are reranked (rerankHits), and with Explain the
// response carries the reranker's score of every candidate
// (rerankCandidates): the tuner's replay reranks from them.
func (e *Engine) Search(ctx context.Context, req backend.SearchRequest) (backend.SearchResponse, error) {
	return e.search(ctx, req, true)
}

// SearchIDs runs req as Search does and answers the same response without
// the hits' Text: the same documents, chunks, scores and order, without
// cutting an excerpt for every hit (the batch endpoint, whose answers
// carry no text).
func (e *Engine) SearchIDs(ctx context.Context, req backend.SearchRequest) (backend.SearchResponse, error) {
	return e.search(ctx, req, false)
}

// search is Search, with the hits' excerpts cut only when text is set.
func (e *Engine) search(ctx context.Context, req backend.SearchRequest, text bool) (backend.SearchResponse, error) {
	if err := e.Ready(ctx); err != nil {
		return backend.SearchResponse{}, err
	}
	p, k, err := e.requestParams(req)
	if err != nil {
		return backend.SearchResponse{}, err
	}
	variants, err := e.variantParams(req, p)
	if err != nil {
		return backend.SearchResponse{}, err
	}
	// A policy (fusion.policy) ranks a request without a fusion override:
	// the lists are retrieved as deep as it reads, its features computed
	// from them, and the arm it chooses fuses them.
	usePolicy := e.policy != nil && req.Fusion == nil && len(req.Variants) == 0
	depth := p.Depth
	if usePolicy {
		depth = max(depth, e.policy.ReadDepth())
	}
	lists := make(map[string][]fusion.Candidate, 2)
	var st backend.StageTimings
	// The dense retriever (query embedding and scan) runs beside BM25
	// when no other search is running; beside others the cores are busy
	// already, and a goroutine would only add a wake-up and a switch, so
	// it runs after BM25. Either way the same lists.
	var dense []fusion.Candidate
	var denseErr error
	searchDense := func() {
		t0 := time.Now()
		dense, denseErr = e.searchDense(ctx, req.Query, depth)
		st.DenseMS = backend.Millis(time.Since(t0))
	}
	alone := e.searches.Add(1) == 1
	defer e.searches.Add(-1)
	var done chan struct{}
	if e.vec != nil && alone {
		done = make(chan struct{})
		go func() {
			defer close(done)
			searchDense()
		}()
	}
	var lexErr error
	if e.lex != nil {
		t0 := time.Now()
		var s []scored
		if s, lexErr = e.lex.search(ctx, req.Query, depth, e.chunks); lexErr == nil {
			lists[BM25] = candidates(s, e.chunks)
		}
		st.LexicalMS = backend.Millis(time.Since(t0))
	}
	if done != nil {
		<-done
	} else if e.vec != nil {
		searchDense()
	}
	fuseStart := time.Now()
	if err := errors.Join(lexErr, denseErr); err != nil {
		return backend.SearchResponse{}, err
	}
	if e.vec != nil {
		lists[Dense] = dense
	}
	pl := fusion.Prepare(lists)
	f, _ := fusers.Get().(*fuser)
	if f == nil {
		f = new(fuser)
	}
	f.text = text
	defer fusers.Put(f)
	var resp backend.SearchResponse
	// The rerank stage reorders the first rerank.window fused hits, so
	// fusion ranks at least that many; its time is its own stage's.
	n := e.rerankDepth(k)
	var rerankTime time.Duration
	rerankStage := func(hits []backend.Hit) ([]backend.Hit, error) {
		t0 := time.Now()
		defer func() { rerankTime += time.Since(t0) }()
		return e.rerankHits(ctx, req.Query, hits, k)
	}
	if usePolicy {
		s := e.policy.Settings(fusion.QueryFeatures(req.Query, lists, e.policy.Depth))
		s.Passage = e.settings.Passage
		resp.Hits, resp.Routing = e.fuseUnder(f, lists, pl, s, n)
	} else {
		resp.Hits, resp.Routing = e.fuse(f, lists, pl, p, n)
	}
	if err := finiteScores(resp.Hits, "fusion"); err != nil {
		return backend.SearchResponse{}, err
	}
	if resp.Hits, err = rerankStage(resp.Hits); err != nil {
		return backend.SearchResponse{}, err
	}
	for i, vp := range variants {
		var v backend.Variant
		v.Hits, v.Routing = e.fuse(f, lists, pl, vp, n)
		if err := finiteScores(v.Hits, fmt.Sprintf("variants[%d]", i)); err != nil {
			return backend.SearchResponse{}, err
		}
		if v.Hits, err = rerankStage(v.Hits); err != nil {
			return backend.SearchResponse{}, err
		}
		resp.Variants = append(resp.Variants, v)
	}
	st.FusionMS = backend.Millis(time.Since(fuseStart) - rerankTime)
	if e.rr != nil {
		st.RerankMS = backend.Millis(rerankTime)
	}
	if req.Explain {
		resp.Candidates = lists
		if e.rr != nil {
			t0 := time.Now()
			if resp.Rerank, err = e.rerankCandidates(ctx, req.Query, lists); err != nil {
				return backend.SearchResponse{}, err
			}
			st.RerankMS += backend.Millis(time.Since(t0))
		}
	}
	if req.Timings {
		resp.Timings = &st // measured: not with Explain alone, whose answers are deterministic
	}
	return resp, nil
}

// fuser is a search's fusion scratch, reused between searches (fusers): a
// Fuser and the ranking it fills, both copied out into the hits.
type fuser struct {
	fusion.Fuser
	ranked []fusion.Ranked
	text   bool // cut each hit's excerpt (Hit.Text)
}

// fusers holds the idle *fuser of finished searches.
var fusers sync.Pool

// fuse ranks the prepared candidate lists under p and the configured
// floors, min_score and mode (the rules of fusion.Fuser.HitsInto) and
// returns the first k hits and their routing.
func (e *Engine) fuse(f *fuser, lists map[string][]fusion.Candidate, pl *fusion.Prepared, p fusion.Params, k int) ([]backend.Hit, string) {
	s := e.settings
	s.Fusion = p
	return e.fuseUnder(f, lists, pl, s, k)
}

// fuseUnder ranks the prepared candidate lists under s (fusion.Fuser.HitsInto)
// and returns the first k hits and their routing.
func (e *Engine) fuseUnder(f *fuser, lists map[string][]fusion.Candidate, pl *fusion.Prepared, s fusion.Settings, k int) ([]backend.Hit, string) {
	f.ranked = f.HitsInto(f.ranked[:0], pl, s, k)
	ranked := f.ranked
	ids, docIDs := pl.IDs(s.Passage), pl.DocIDs(s.Passage)
	// A document-level hit stands for its best chunk; when every
	// candidate is a whole document, that is the document itself (its
	// unit's id).
	var best map[string]rankedChunk
	if !s.Passage && !pl.WholeDocuments() && len(ranked) > 0 {
		best = bestChunks(lists, s)
	}
	hits := make([]backend.Hit, 0, len(ranked))
	for _, r := range ranked {
		chunk := ids[r.Unit]
		if best != nil {
			chunk = docIDs[r.Unit]
			if b, ok := best[chunk]; ok {
				chunk = b.id
			}
		}
		h := backend.Hit{DocID: docIDs[r.Unit], ChunkID: chunk, Score: r.Score}
		if f.text {
			if i, ok := e.chunkIndex(chunk); ok {
				h.Text = corpus.Excerpt(e.chunks[i].Text, excerptRunes)
			}
		}
		hits = append(hits, h)
	}
	return hits, fusion.Routing(len(hits))
}

// rankedChunk is a document's best chunk so far: its id, rank and list.
type rankedChunk struct {
	id, list string
	rank     int
}

// bestChunks maps every document of lists to the chunk a document-level
// hit on it stands for: its first chunk in each list cut at its
// retriever's floor under s, the one of lowest rank (ties by retriever
// name). A document in none of them is its own chunk (absent from the
// map). One pass over the lists, for every hit of a ranking.
func bestChunks(lists map[string][]fusion.Candidate, s fusion.Settings) map[string]rankedChunk {
	n := 0
	for _, l := range lists {
		n += len(l)
	}
	best := make(map[string]rankedChunk, n)
	seen := make(map[string]struct{}, n)
	for name, l := range lists {
		clear(seen)
		for _, c := range l[:s.Floor(name, l)] {
			if c.DocID == "" {
				continue // its own document: never another's chunk
			}
			if _, dup := seen[c.DocID]; dup {
				continue // only a document's first chunk in each list
			}
			seen[c.DocID] = struct{}{}
			b, ok := best[c.DocID]
			if !ok || c.Rank < b.rank || (c.Rank == b.rank && name < b.list) {
				best[c.DocID] = rankedChunk{id: c.ID, list: name, rank: c.Rank}
			}
		}
	}
	return best
}

// finiteScores refuses fused scores that overflowed (weights such as
// 1e308 under normalization none): an invalid request, not a failed
// search. where names the settings ("fusion", "variants[2]").
func finiteScores(hits []backend.Hit, where string) error {
	for _, h := range hits {
		if math.IsInf(h.Score, 0) || math.IsNaN(h.Score) {
			return fmt.Errorf("%w: %s: a fused score overflows (%v for %s): weights or k too large for the retrievers' scores", ErrInvalidRequest, where, h.Score, h.DocID)
		}
	}
	return nil
}

// variantParams checks the fusion variants of req and merges each over
// the configured settings; each must keep the request's depth p.Depth,
// since the candidate lists are retrieved once.
func (e *Engine) variantParams(req backend.SearchRequest, p fusion.Params) ([]fusion.Params, error) {
	if len(req.Variants) > MaxVariants {
		return nil, fmt.Errorf("%w: variants: at most %d (got %d)", ErrInvalidRequest, MaxVariants, len(req.Variants))
	}
	out := make([]fusion.Params, len(req.Variants))
	for i := range req.Variants {
		one := req
		one.Fusion, one.Variants = &req.Variants[i], nil
		vp, _, err := e.requestParams(one)
		if err != nil {
			return nil, fmt.Errorf("variants[%d]: %w", i, err)
		}
		if vp.Depth != p.Depth {
			return nil, fmt.Errorf("%w: variants[%d].depth: must equal the request's depth %d (got %d): the candidate lists are retrieved once", ErrInvalidRequest, i, p.Depth, vp.Depth)
		}
		out[i] = vp
	}
	return out, nil
}

// searchDense embeds the query and returns the dense candidate list.
func (e *Engine) searchDense(ctx context.Context, query string, depth int) ([]fusion.Candidate, error) {
	q, err := e.emb.EmbedQuery(ctx, query)
	if err != nil {
		return nil, fmt.Errorf("dense: embed query: %w", err)
	}
	s, err := e.vec.search(q, depth, e.chunks)
	if err != nil {
		return nil, err
	}
	return candidates(s, e.chunks), nil
}

// requestParams merges the request's fusion override over the configured
// settings and checks the request.
func (e *Engine) requestParams(req backend.SearchRequest) (fusion.Params, int, error) {
	var probs []string
	if strings.TrimSpace(req.Query) == "" {
		probs = append(probs, "query: must not be empty")
	}
	k := req.K
	if k == 0 {
		k = DefaultHits
	}
	if k < 0 || k > MaxDepth {
		probs = append(probs, fmt.Sprintf("k: must be in [0, %d] (got %d)", MaxDepth, req.K))
	}
	if req.Fusion != nil {
		if err := req.Fusion.Validate(); err != nil {
			var ve *fusion.ValidationError
			if errors.As(err, &ve) {
				for _, fe := range ve.Problems {
					probs = append(probs, "fusion."+fe.Error())
				}
			} else {
				probs = append(probs, err.Error())
			}
		}
		for name := range req.Fusion.Weights {
			if !e.cfg.Has(name) {
				probs = append(probs, fmt.Sprintf("fusion.weights.%s: not an enabled retriever (retrievers: %s)", name, strings.Join(e.cfg.Retrievers, ", ")))
			}
		}
		if req.Fusion.Depth > MaxDepth {
			probs = append(probs, fmt.Sprintf("fusion.depth: must be <= %d (got %d)", MaxDepth, req.Fusion.Depth))
		}
		if req.Fusion.Policy != "" {
			probs = append(probs, "fusion.policy: set in the engine config only, not per request")
		}
		if math.IsNaN(req.Fusion.K) {
			probs = append(probs, "fusion.k: must be a number")
		}
	}
	if len(probs) > 0 {
		return fusion.Params{}, 0, fmt.Errorf("%w: %s", ErrInvalidRequest, strings.Join(probs, "; "))
	}
	return e.cfg.FusionParams().Override(req.Fusion).WithDefaults(), k, nil
}

func (e *Engine) chunkIndex(id string) (int, bool) {
	i, ok := e.chunkOf[id]
	return i, ok
}
