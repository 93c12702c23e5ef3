package reranktest

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"unicode"
)

// Server is a running deterministic reranker.
type Server struct {
	// URL is the address of its Cohere-shaped endpoint (/rerank); TEIURL
	// returns the TEI-shaped one.
	URL    string
	srv    *httptest.Server
	mu     sync.Mutex
	pairs  map[string]int // "query\x00doc" -> times scored
	scored int
	fail   bool
}

// Start starts a Server on a loopback port; Close stops it.
func Start() *Server {
	s := &Server{pairs: map[string]int{}}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /rerank", s.cohere)
	mux.HandleFunc("POST /tei/rerank", s.tei)
	s.srv = httptest.NewServer(mux)
	s.URL = s.srv.URL + "/rerank"
	return s
}

// TEIURL returns the address of the TEI-shaped endpoint.
func (s *Server) TEIURL() string { return s.srv.URL + "/tei/rerank" }

// Close stops the server.
func (s *Server) Close() { s.srv.Close() }

// Fail makes every later request answer 400 (true) or succeed (false).
func (s *Server) Fail(on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fail = on
}

// Scored returns how many (query, document) pairs the server scored, and
// how many distinct pairs among them.
func (s *Server) Scored() (total, distinct int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.scored, len(s.pairs)
}

// Score is the server's score of doc for query: the share of the query's
// distinct words (lowercased letters and digits) found among doc's words,
// plus 0.001 per 100 bytes of doc shorter than 10,000 bytes, so that
// shorter documents win ties.
func Score(query, doc string) float64 {
	qw := words(query)
	if len(qw) == 0 {
		return 0
	}
	dw := map[string]bool{}
	for _, w := range words(doc) {
		dw[w] = true
	}
	seen := map[string]bool{}
	hit, n := 0, 0
	for _, w := range qw {
		if seen[w] {
			continue
		}
		seen[w] = true
		n++
		if dw[w] {
			hit++
		}
	}
	return float64(hit)/float64(n) + 0.001*float64(max(0, 10000-len(doc))/100)
}

func words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// score scores docs for query, counting each pair, and returns the
// results sorted by score (best first, ties by index), as servers answer.
func (s *Server) score(w http.ResponseWriter, query string, docs []string, tei bool) {
	s.mu.Lock()
	fail := s.fail
	if !fail {
		for _, d := range docs {
			s.pairs[query+"\x00"+d]++
			s.scored++
		}
	}
	s.mu.Unlock()
	if fail {
		http.Error(w, `{"error":"failing on purpose"}`, http.StatusBadRequest)
		return
	}
	key := "relevance_score"
	if tei {
		key = "score"
	}
	scores := make([]float64, len(docs))
	idx := make([]int, len(docs))
	for i, d := range docs {
		scores[i], idx[i] = Score(query, d), i
	}
	sort.SliceStable(idx, func(a, b int) bool { return scores[idx[a]] > scores[idx[b]] })
	out := make([]map[string]any, len(docs))
	for j, i := range idx {
		out[j] = map[string]any{"index": i, key: scores[i]}
	}
	w.Header().Set("Content-Type", "application/json")
	if tei {
		json.NewEncoder(w).Encode(out)
		return
	}
	json.NewEncoder(w).Encode(map[string]any{"results": out})
}

func (s *Server) cohere(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Model     string   `json:"model"`
		Query     string   `json:"query"`
		Documents []string `json:"documents"`
		TopN      int      `json:"top_n"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Query == "" {
		http.Error(w, "want {model, query, documents, top_n}", http.StatusBadRequest)
		return
	}
	s.score(w, req.Query, req.Documents, false)
}

func (s *Server) tei(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Query string   `json:"query"`
		Texts []string `json:"texts"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Query == "" {
		http.Error(w, "want {query, texts}", http.StatusBadRequest)
		return
	}
	s.score(w, req.Query, req.Texts, true)
}
