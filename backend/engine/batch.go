package engine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/backend/fusion"
	"github.com/fusiontune/fusiontune/internal/searchwire"
)

// Limits of POST /search/batch.
const (
	// MaxBatchRequests caps the requests of one batch.
	MaxBatchRequests = 10000
	// MaxBatchBodyBytes caps a batch's body.
	MaxBatchBodyBytes = 16 << 20
	// maxBatchProblems bounds the problems a refused batch lists.
	maxBatchProblems = 10
)

// searchBatch answers POST /search/batch: a body of newline-delimited
// backend.SearchRequest objects (the fields of POST /search, one request a
// line; blank lines are skipped), each searched exactly as /search
// searches it (Engine.Search: the same retrievers, fusion and checks) on
// the server's cores, answered as one line of compact JSON per request,
// written as each completes (any order; "i" is the request's 0-based
// position among the requests; searchwire.AppendAnswer writes them):
//
//	{"i":0,"ms":0.41,"hits":[["doc",0.0323],["doc","chunk",0.0318]],"routing":"search",
//	 "candidates":{"bm25":[["id",12.7],["chunk","doc",11.2]],"dense":[...]},
//	 "variants":[{"hits":[...],"routing":"search"}],"timings":{"lexical_ms":0.2,"dense_ms":0.3,"fusion_ms":0.05}}
//	{"i":1,"status":400,"error":"variants[0]: a fused score overflows ..."}
//
// A hit is [doc_id, score], or [doc_id, chunk_id, score] when its chunk is
// not the document; hits carry no text. A candidate is [id, score] (its
// document is id and its rank its 1-based position), [id, doc_id, score]
// or [id, doc_id, score, rank]. "ms" is the search's own time on the
// server; "routing", "candidates", "variants" and "timings" are left out
// when /search leaves them out. Scores are written exactly (they parse to
// the same float64s /search gives). A request that fails while searching
// gets "status" (what /search would answer: 400, 503 or 500) and "error",
// and the batch goes on.
//
// The whole batch is refused before any search (400, listing the bad
// lines) when a line is not a request /search accepts: malformed or
// unknown fields, an empty or over-long query, k or fusion settings out of
// range; with 413 over MaxBatchBodyBytes, 400 beyond MaxBatchRequests or
// without any request, and 503 while indexing. Batch searches are not
// written to the query log.
func (s *Server) searchBatch(w http.ResponseWriter, r *http.Request) {
	reqs, lines, err := decodeBatch(http.MaxBytesReader(w, r.Body, MaxBatchBodyBytes))
	if err != nil {
		writeBodyError(w, err, "batch body")
		return
	}
	if err := s.checkBatch(reqs, lines); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	if err := s.e.Ready(r.Context()); err != nil {
		writeError(w, http.StatusServiceUnavailable, err.Error())
		return
	}
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.WriteHeader(http.StatusOK)
	s.runBatch(r.Context(), w, reqs)
}

// runBatch searches reqs on as many workers as the server has cores (each
// search holding one of the server's search slots) and writes each answer
// as it completes, flushing whenever no other answer is waiting.
func (s *Server) runBatch(ctx context.Context, w io.Writer, reqs []backend.SearchRequest) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	workers := min(len(reqs), runtime.GOMAXPROCS(0), s.opts.MaxInFlight)
	lines := make(chan *[]byte, 2*workers)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= len(reqs) || ctx.Err() != nil {
					return
				}
				select {
				case s.sem <- struct{}{}:
				case <-ctx.Done():
					return
				}
				start := time.Now()
				resp, err := s.e.SearchIDs(ctx, reqs[i])
				<-s.sem
				if err != nil && !errors.Is(err, ErrInvalidRequest) && !errors.Is(err, ErrNotReady) && ctx.Err() == nil {
					s.opts.Logger.Error("batch search failed", "query", reqs[i].Query, "err", err)
				}
				buf := lineBufs.Get().(*[]byte)
				*buf = appendBatchAnswer((*buf)[:0], i, resp, err, time.Since(start))
				select {
				case lines <- buf:
				case <-ctx.Done():
					return
				}
			}
		}()
	}
	go func() {
		wg.Wait()
		close(lines)
	}()
	flusher, _ := w.(http.Flusher)
	failed := false
	for buf := range lines {
		if !failed {
			if _, err := w.Write(*buf); err != nil {
				failed = true // the client is gone: stop the searches, drain
				cancel()
			} else if len(lines) == 0 && flusher != nil {
				flusher.Flush()
			}
		}
		lineBufs.Put(buf)
	}
}

// lineBufs holds the encoding buffers of answered lines.
var lineBufs = sync.Pool{New: func() any { b := make([]byte, 0, 8<<10); return &b }}

// decodeBatch reads a batch body: one backend.SearchRequest a line,
// decoded as strictly as /search decodes its body; blank lines skipped.
// It returns the requests and the line each is on. Every malformed line is
// listed (up to maxBatchProblems).
func decodeBatch(r io.Reader) ([]backend.SearchRequest, []int, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, nil, fmt.Errorf("read request: %w", err)
	}
	var reqs []backend.SearchRequest
	var lines []int
	var probs batchProblems
	for n, rest := 1, data; len(rest) > 0; n++ {
		line := rest
		if i := bytes.IndexByte(rest, '\n'); i >= 0 {
			line, rest = rest[:i], rest[i+1:]
		} else {
			rest = nil
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if len(reqs) == MaxBatchRequests {
			return nil, nil, fmt.Errorf("%w: batch: at most %d requests (line %d is one more)", ErrInvalidRequest, MaxBatchRequests, n)
		}
		req, err := decodeSearchRequest(bytes.NewReader(line))
		if err != nil {
			probs.add(n, err)
		}
		reqs, lines = append(reqs, req), append(lines, n)
	}
	if err := probs.err(); err != nil {
		return nil, nil, err
	}
	if len(reqs) == 0 {
		return nil, nil, fmt.Errorf("%w: batch: no request (want one JSON object a line, each with at least \"query\")", ErrInvalidRequest)
	}
	return reqs, lines, nil
}

// checkBatch checks every request of a batch as /search checks one (the
// query's size and terms, k, the fusion override and the variants),
// before any search runs; lines[i] is the line of reqs[i].
func (s *Server) checkBatch(reqs []backend.SearchRequest, lines []int) error {
	var probs batchProblems
	for i, req := range reqs {
		err := s.checkQuery(req.Query)
		if err == nil {
			var p fusion.Params
			if p, _, err = s.e.requestParams(req); err == nil {
				_, err = s.e.variantParams(req, p)
			}
		}
		if err != nil {
			probs.add(lines[i], err)
		}
	}
	return probs.err()
}

// batchProblems collects a batch's bad requests, by line.
type batchProblems struct {
	list []string
	n    int
}

func (p *batchProblems) add(line int, err error) {
	p.n++
	if len(p.list) < maxBatchProblems {
		msg := strings.TrimPrefix(err.Error(), ErrInvalidRequest.Error()+": ")
		p.list = append(p.list, fmt.Sprintf("line %d: %s", line, msg))
	}
}

func (p *batchProblems) err() error {
	if p.n == 0 {
		return nil
	}
	more := ""
	if p.n > len(p.list) {
		more = fmt.Sprintf("; and %d more", p.n-len(p.list))
	}
	return fmt.Errorf("%w: batch: %s%s", ErrInvalidRequest, strings.Join(p.list, "; "), more)
}

// appendBatchAnswer appends the answer line of request i to b
// (searchwire.AppendAnswer): the response, or the error with the status
// /search would answer.
func appendBatchAnswer(b []byte, i int, resp backend.SearchResponse, err error, elapsed time.Duration) []byte {
	if err == nil {
		out, ok := searchwire.AppendAnswer(b, i, &resp, elapsed)
		if ok {
			return out
		}
		b = out
		err = errors.New("encode response: a score is not a finite number")
	}
	status := http.StatusInternalServerError
	switch {
	case errors.Is(err, ErrInvalidRequest):
		status = http.StatusBadRequest
	case errors.Is(err, ErrNotReady):
		status = http.StatusServiceUnavailable
	}
	return searchwire.AppendAnswerError(b, i, status, err.Error())
}
