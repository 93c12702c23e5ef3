package engine

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/internal/querylog"
)

// RequestIDHeader is the response header carrying a search's request id
// when the query log is on: the id a client sends back in POST /feedback.
const RequestIDHeader = "X-Request-Id"

// RecentRequests is how many answered requests the server remembers for
// feedback; feedback for an older (or unknown) request id gets 400.
const RecentRequests = 1 << 16

// LogConfig is the `log` block of an engine config: where `tune serve`
// appends its query log (internal/querylog's format) and how much of it.
//
//	log:
//	  path: queries.jsonl     # relative to the config file
//	  sample: 0.1             # (0, 1], default 1: every search
//	  rotate_bytes: 67108864  # [1024, 2^40], default 64 MiB
//	  keep: 5                 # rotated files kept, [1, 1000], default 5
type LogConfig struct {
	Path        string  `yaml:"path" json:"path"`
	Sample      float64 `yaml:"sample,omitempty" json:"sample,omitempty"`
	RotateBytes int64   `yaml:"rotate_bytes,omitempty" json:"rotate_bytes,omitempty"`
	Keep        int     `yaml:"keep,omitempty" json:"keep,omitempty"`
}

func (l *LogConfig) options() querylog.Options {
	return querylog.Options{Sample: l.Sample, RotateBytes: l.RotateBytes, Keep: l.Keep}
}

// problems checks the block (nil: no log, no problem).
func (l *LogConfig) problems() []*FieldError {
	if l == nil {
		return nil
	}
	var out []*FieldError
	if l.Path == "" {
		out = append(out, &FieldError{Field: "log.path", Problem: "required (the query log's file)"})
	}
	for _, p := range l.options().Validate() {
		field, msg, _ := strings.Cut(p, ": ")
		out = append(out, &FieldError{Field: "log." + field, Problem: msg})
	}
	return out
}

// decodeStrict reads exactly one JSON object with only v's fields.
func decodeStrict(r io.Reader, v any) error {
	data, err := io.ReadAll(r)
	if err != nil {
		return fmt.Errorf("read request: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("malformed JSON body: %s", jsonErrorDetail(data, dec, err))
	}
	if dec.More() {
		return fmt.Errorf("malformed JSON body: more than one value")
	}
	return nil
}

// OpenQueryLog opens the query log c.Log asks for (nil, nil when off).
func OpenQueryLog(c Config) (*querylog.Writer, error) {
	if c.Log == nil {
		return nil, nil
	}
	return querylog.Open(c.Log.Path, c.Log.options())
}

// recentRequests is a bounded memory of answered requests: a ring of ids
// and each id's result ids.
type recentRequests struct {
	mu   sync.Mutex
	ring []string
	next int
	docs map[string][]string
}

func (r *recentRequests) add(id string, docs []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.docs == nil {
		r.ring, r.docs = make([]string, RecentRequests), make(map[string][]string)
	}
	if old := r.ring[r.next]; old != "" {
		delete(r.docs, old)
	}
	r.ring[r.next], r.docs[id] = id, docs
	r.next = (r.next + 1) % len(r.ring)
}

func (r *recentRequests) get(id string) ([]string, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	d, ok := r.docs[id]
	return d, ok
}

// newRequestID returns a random request id, "r-" and 16 hex digits.
func newRequestID() string {
	var b [8]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails on supported platforms
	return "r-" + hex.EncodeToString(b[:])
}

// ConfigHash is the first 12 hex digits of the SHA-256 of an engine
// config as JSON: which config answered, in the query log.
func ConfigHash(c Config) string {
	data, _ := json.Marshal(c)
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:6])
}

// logSearch remembers an answered search under its request id and
// appends its event to the query log (when sampled). Only the query, the
// hits, the ranks and the timing are logged: never a header.
func (s *Server) logSearch(id string, req backend.SearchRequest, resp backend.SearchResponse, elapsed time.Duration) {
	e := &querylog.Event{Type: querylog.TypeSearch, Time: time.Now().UTC(), RequestID: id, Query: req.Query, K: req.K,
		LatencyMS: float64(elapsed.Microseconds()) / 1000, Config: s.hash}
	ranks := map[string]map[string]int{} // doc -> retriever -> best rank
	names := make([]string, 0, len(resp.Candidates))
	for name := range resp.Candidates {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		for i, c := range resp.Candidates[name] {
			if ranks[c.DocID] == nil {
				ranks[c.DocID] = map[string]int{}
			}
			if _, seen := ranks[c.DocID][name]; !seen {
				ranks[c.DocID][name] = i + 1
			}
		}
	}
	docs := make([]string, 0, len(resp.Hits))
	seen := map[string]bool{}
	for _, h := range resp.Hits {
		if seen[h.DocID] { // passage mode: a document's best chunk only
			continue
		}
		seen[h.DocID] = true
		docs = append(docs, h.DocID)
		e.Results = append(e.Results, querylog.Result{ID: h.DocID, Score: h.Score, Ranks: ranks[h.DocID]})
	}
	s.recent.add(id, docs)
	if err := s.opts.QueryLog.Write(e); err != nil {
		s.opts.Logger.Error("query log", "err", err)
	}
	if s.opts.QueryLog.Sampled(id) {
		s.maybeShadow(id, req, docs)
	}
}

// feedbackRequest is POST /feedback's body.
type feedbackRequest struct {
	RequestID string `json:"request_id"`
	Action    string `json:"action"`
	DocID     string `json:"doc_id,omitempty"`
	Position  int    `json:"position,omitempty"`
}

// feedback records a click or a re-search for a request this server
// answered lately: 204 when recorded, 400 for a malformed event or an
// unknown request id, 404 when the query log is off.
func (s *Server) feedback(w http.ResponseWriter, r *http.Request) {
	if s.opts.QueryLog == nil {
		writeError(w, http.StatusNotFound, "feedback needs the query log: set log.path in the engine config")
		return
	}
	var req feedbackRequest
	if err := decodeStrict(http.MaxBytesReader(w, r.Body, 64<<10), &req); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	e := &querylog.Event{Type: querylog.TypeFeedback, Time: time.Now().UTC(), RequestID: req.RequestID, Action: req.Action, DocID: req.DocID, Position: req.Position}
	if p := e.Check(); p != "" {
		writeError(w, http.StatusBadRequest, p)
		return
	}
	docs, ok := s.recent.get(req.RequestID)
	if !ok {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("request_id: %q was not answered by this server (or is older than its last %d searches)", req.RequestID, RecentRequests))
		return
	}
	if e.Action == querylog.ActionClick {
		at := -1
		for i, d := range docs {
			if d == e.DocID {
				at = i + 1
			}
		}
		switch {
		case at < 0:
			writeError(w, http.StatusBadRequest, fmt.Sprintf("doc_id: %q was not among the results of %s", e.DocID, req.RequestID))
			return
		case e.Position == 0:
			e.Position = at
		case e.Position != at:
			writeError(w, http.StatusBadRequest, fmt.Sprintf("position: %d, but %q was at %d", e.Position, e.DocID, at))
			return
		}
	}
	if err := s.opts.QueryLog.Write(e); err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	w.WriteHeader(http.StatusNoContent)
}
