package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
	"unicode"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/internal/querylog"
)

// Server defaults and limits.
const (
	DefaultMaxBodyBytes = 1 << 20 // request bodies above this are refused
	// DefaultMaxQueryTerms is the default cap on a query's terms (see
	// QueryTerms): the body limit alone lets one query carry ~120k terms,
	// each a posting-list walk and a vector update.
	DefaultMaxQueryTerms = 1024
	// MaxQueryTermsLimit is the highest MaxQueryTerms a server accepts.
	MaxQueryTermsLimit = 65536
	// MaxQueryBytes caps a query's length in bytes (a single huge term is
	// still work for the analyzer and the embedder).
	MaxQueryBytes = 64 << 10
)

// DefaultMaxInFlight is the number of searches Server runs at once by
// default; further requests wait for a slot.
var DefaultMaxInFlight = 4 * runtime.GOMAXPROCS(0)

// DefaultQueuedPerSlot sets the default MaxQueued: this many waiting
// requests per search slot.
const DefaultQueuedPerSlot = 4

// ServerOptions tune a Server; zero fields take the defaults above.
type ServerOptions struct {
	MaxBodyBytes int64
	MaxInFlight  int
	// MaxQueued is how many searches may wait for a slot; beyond it a
	// request gets 503 with Retry-After at once, so a flood cannot pile up
	// goroutines and memory. Default DefaultQueuedPerSlot * MaxInFlight.
	MaxQueued int
	// MaxQueryTerms caps a query's terms (QueryTerms); a query over it
	// gets 400. In [1, MaxQueryTermsLimit]; 0 takes DefaultMaxQueryTerms.
	MaxQueryTerms int
	Logger        *slog.Logger
	// QueryLog, when set, receives a search event for every answered
	// search (its sample) and enables POST /feedback (see querylog.go).
	QueryLog *querylog.Writer
	// Shadow, with QueryLog, searches a second engine on a sample of the
	// answered searches and logs its answer (see shadow.go).
	Shadow *Shadow
}

// CheckServerOptions checks the ranges of o's settable limits (zero
// fields take the defaults).
func CheckServerOptions(o ServerOptions) error {
	if o.MaxQueryTerms < 0 || o.MaxQueryTerms > MaxQueryTermsLimit {
		return fmt.Errorf("max query terms: want an integer in [1, %d] (got %d)", MaxQueryTermsLimit, o.MaxQueryTerms)
	}
	return nil
}

// QueryTerms counts the terms of a query as the analyzer could see them,
// an upper bound cheap to compute: runs of letters or digits, each
// ideograph (Han, Hiragana, Katakana, Hangul) a term of its own.
func QueryTerms(q string) int {
	n, in := 0, false
	for _, r := range q {
		switch {
		case unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul):
			n, in = n+1, false
		case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r) && in:
			if !in {
				n, in = n+1, true
			}
		default:
			in = false
		}
	}
	return n
}

// Server serves an Engine over HTTP:
//
//	GET  /healthz  200 {"status":"ready"}; 503 {"status":"indexing"} or {"status":"failed","error":...}
//	POST /search   backend.SearchRequest -> backend.SearchResponse
//	POST /search/batch  one backend.SearchRequest a line -> one compact answer line each (searchBatch)
//	GET  /config   the effective Config as JSON
//	POST /feedback a click or re-search for a request id (with the query log on; see querylog.go)
//
// Errors are JSON {"error": "..."}: 400 for a malformed or invalid request
// (a query over MaxQueryBytes or MaxQueryTerms terms, fusion settings
// whose fused scores overflow),
// 404/405 for a wrong path or method, 413 for a body over the limit, 503
// while indexing, 500 for a failed search.
type Server struct {
	e      *Engine
	opts   ServerOptions
	sem    chan struct{}
	queued atomic.Int64
	mux    *http.ServeMux
	// recent remembers the requests answered lately, for /feedback.
	recent recentRequests
	hash   string // the engine config's hash, as logged
}

// NewServer returns a Server for e; e may still be building.
func NewServer(e *Engine, opts ServerOptions) *Server {
	if opts.MaxBodyBytes <= 0 {
		opts.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if opts.MaxInFlight <= 0 {
		opts.MaxInFlight = DefaultMaxInFlight
	}
	if opts.MaxQueued <= 0 {
		opts.MaxQueued = DefaultQueuedPerSlot * opts.MaxInFlight
	}
	if opts.MaxQueryTerms <= 0 {
		opts.MaxQueryTerms = DefaultMaxQueryTerms
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	s := &Server{e: e, opts: opts, sem: make(chan struct{}, opts.MaxInFlight), mux: http.NewServeMux()}
	if opts.QueryLog != nil {
		s.hash = ConfigHash(e.Config())
	}
	s.mux.HandleFunc("/healthz", s.method(http.MethodGet, s.health))
	s.mux.HandleFunc("/search", s.method(http.MethodPost, s.search))
	s.mux.HandleFunc("/search/batch", s.method(http.MethodPost, s.searchBatch))
	s.mux.HandleFunc("/config", s.method(http.MethodGet, s.config))
	s.mux.HandleFunc("/feedback", s.method(http.MethodPost, s.feedback))
	s.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, fmt.Sprintf("no such endpoint %q (want /healthz, /search or /config)", r.URL.Path))
	})
	return s
}

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.mux.ServeHTTP(w, r) }

func (s *Server) method(m string, h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Method != m {
			w.Header().Set("Allow", m)
			writeError(w, http.StatusMethodNotAllowed, fmt.Sprintf("%s %s: method not allowed (want %s)", r.Method, r.URL.Path, m))
			return
		}
		h(w, r)
	}
}

func (s *Server) health(w http.ResponseWriter, r *http.Request) {
	err := s.e.Ready(r.Context())
	switch {
	case err == nil:
		writeJSON(w, http.StatusOK, map[string]string{"status": "ready"})
	case errors.Is(err, ErrNotReady):
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "indexing"})
	default:
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "failed", "error": err.Error()})
	}
}

func (s *Server) config(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, s.e.Config())
}

func (s *Server) search(w http.ResponseWriter, r *http.Request) {
	req, err := decodeSearchRequest(http.MaxBytesReader(w, r.Body, s.opts.MaxBodyBytes))
	if err != nil {
		writeBodyError(w, err, "request body")
		return
	}
	if err := s.checkQuery(req.Query); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	if !s.acquire(w, r) {
		return
	}
	defer func() { <-s.sem }()
	start := time.Now()
	explain, id := req.Explain, ""
	if s.opts.QueryLog != nil {
		// A logged search records each retriever's ranks: only the
		// sampled ones pay for the explain.
		id = newRequestID()
		req.Explain = explain || s.opts.QueryLog.Sampled(id)
	}
	resp, err := s.e.Search(r.Context(), req)
	switch {
	case err == nil:
		if s.opts.QueryLog != nil {
			s.logSearch(id, req, resp, time.Since(start))
			w.Header().Set(RequestIDHeader, id)
			if !explain {
				resp.Candidates = nil
			}
		}
		writeSearchResponse(w, &resp)
		s.opts.Logger.Debug("search", "query", req.Query, "hits", len(resp.Hits), "elapsed", time.Since(start))
	case errors.Is(err, ErrInvalidRequest):
		writeError(w, http.StatusBadRequest, err.Error())
	case errors.Is(err, ErrNotReady):
		writeError(w, http.StatusServiceUnavailable, err.Error())
	default:
		s.opts.Logger.Error("search failed", "query", req.Query, "err", err)
		writeError(w, http.StatusInternalServerError, err.Error())
	}
}

// checkQuery bounds a query's work before any retrieval: its length in
// bytes and its terms.
func (s *Server) checkQuery(q string) error {
	if len(q) > MaxQueryBytes {
		return fmt.Errorf("%w: query: at most %d bytes (got %d)", ErrInvalidRequest, MaxQueryBytes, len(q))
	}
	if n := QueryTerms(q); n > s.opts.MaxQueryTerms {
		return fmt.Errorf("%w: query: at most %d terms (got %d; tune serve --max-query-terms)", ErrInvalidRequest, s.opts.MaxQueryTerms, n)
	}
	return nil
}

// acquire takes a search slot, waiting in a bounded queue. It answers 503
// itself and returns false when the queue is full or the client gives up.
func (s *Server) acquire(w http.ResponseWriter, r *http.Request) bool {
	select {
	case s.sem <- struct{}{}:
		return true
	default:
	}
	if s.queued.Add(1) > int64(s.opts.MaxQueued) {
		s.queued.Add(-1)
		w.Header().Set("Retry-After", "1")
		writeError(w, http.StatusServiceUnavailable, fmt.Sprintf("busy: %d searches running and %d waiting (the limits); retry later", s.opts.MaxInFlight, s.opts.MaxQueued))
		return false
	}
	defer s.queued.Add(-1)
	select {
	case s.sem <- struct{}{}:
		return true
	case <-r.Context().Done():
		writeError(w, http.StatusServiceUnavailable, "request cancelled while waiting for a search slot")
		return false
	}
}

// decodeSearchRequest reads exactly one JSON object with only the known
// fields of backend.SearchRequest.
func decodeSearchRequest(r io.Reader) (backend.SearchRequest, error) {
	var req backend.SearchRequest
	data, err := io.ReadAll(r)
	if err != nil {
		return req, fmt.Errorf("read request: %w", err)
	}
	if simple, ok := decodeSimpleSearch(data); ok {
		return simple, nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		return req, fmt.Errorf("%w: malformed JSON body: %s", ErrInvalidRequest, jsonErrorDetail(data, dec, err))
	}
	if dec.More() {
		return req, fmt.Errorf("%w: malformed JSON body: more than one value", ErrInvalidRequest)
	}
	return req, nil
}

// jsonErrorDetail adds the byte offset to a JSON decoding error.
func jsonErrorDetail(data []byte, dec *json.Decoder, err error) string {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return fmt.Sprintf("%v (at byte %d)", err, se.Offset)
	case errors.As(err, &te):
		return fmt.Sprintf("field %q: cannot use JSON %s as %s (at byte %d)", te.Field, te.Value, te.Type, te.Offset)
	case errors.Is(err, io.EOF):
		return "empty body (want a JSON object with at least \"query\")"
	default:
		return fmt.Sprintf("%v (at byte %d)", err, dec.InputOffset())
	}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		status = http.StatusInternalServerError
		data, _ = json.Marshal(map[string]string{"error": "encode response: " + err.Error()})
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(append(data, '\n'))
}

// writeBodyError answers a request whose body (named what) could not be
// read: 413 when it is over its limit, 400 otherwise.
func writeBodyError(w http.ResponseWriter, err error, what string) {
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		writeError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("%s over %d bytes", what, mbe.Limit))
		return
	}
	writeError(w, http.StatusBadRequest, err.Error())
}

func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]string{"error": msg})
}

// DrainTimeout bounds how long Serve waits for in-flight requests after
// its context is cancelled.
const DrainTimeout = 10 * time.Second

// Serve answers HTTP on ln while building the engine in the background:
// /healthz says 503 until the build is done. onReady, when not nil, runs
// once the engine is ready. Serve returns nil after ctx is cancelled and
// in-flight requests drained; it returns the build's error (after closing
// the listener) when the build fails, and the server's error if it stops.
func (s *Server) Serve(ctx context.Context, ln net.Listener, onReady func()) error {
	srv := &http.Server{
		Handler:           s,
		ReadHeaderTimeout: 10 * time.Second,
		MaxHeaderBytes:    64 << 10,
		ReadTimeout:       30 * time.Second,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          slog.NewLogLogger(s.opts.Logger.Handler(), slog.LevelWarn),
	}
	conns := trackActive(srv)
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	buildCtx, cancelBuild := context.WithCancel(ctx)
	defer cancelBuild()
	built := make(chan error, 1)
	go func() { built <- s.e.Build(buildCtx) }()
	drain := func() error {
		sctx, cancel := context.WithTimeout(context.Background(), DrainTimeout)
		defer cancel()
		shut := make(chan error, 1)
		go func() { shut <- srv.Shutdown(sctx) }()
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case err := <-shut:
				if err != nil {
					srv.Close()
					return fmt.Errorf("serve: drain: %w", err)
				}
				return nil
			case <-tick.C:
				// Shutdown has closed the listener and the idle
				// connections. Once no request is in flight, what is
				// left are connections that never sent one (an HTTP
				// client's spare dial), which Shutdown would wait up
				// to 5 s for: close them now.
				if conns.active() == 0 {
					srv.Close()
					return nil
				}
			}
		}
	}
	for {
		select {
		case err := <-errc:
			return fmt.Errorf("serve: %w", err)
		case err := <-built:
			built = nil
			if err != nil {
				if ctx.Err() != nil {
					return drain()
				}
				drain()
				return fmt.Errorf("serve: build index: %w", err)
			}
			if onReady != nil {
				onReady()
			}
		case <-ctx.Done():
			cancelBuild()
			if built != nil {
				<-built
			}
			return drain()
		}
	}
}

// activeConns counts a server's connections that are in the middle of a
// request (http.StateActive).
type activeConns struct {
	mu sync.Mutex
	m  map[net.Conn]bool
}

// trackActive installs a ConnState hook on srv that keeps the count.
func trackActive(srv *http.Server) *activeConns {
	a := &activeConns{m: map[net.Conn]bool{}}
	srv.ConnState = func(c net.Conn, st http.ConnState) {
		a.mu.Lock()
		defer a.mu.Unlock()
		if st == http.StateActive {
			a.m[c] = true
		} else {
			delete(a.m, c)
		}
	}
	return a
}

func (a *activeConns) active() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.m)
}
