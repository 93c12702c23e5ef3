package llmtest

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// Server is a running test server.
type Server struct {
	// URL is the base URL (http://127.0.0.1:PORT).
	URL string
	// Key, when set, is the API key requests must carry as a bearer token
	// (401 otherwise).
	Key string
	// Fault, when set, is asked first for every request (n counts requests
	// from 1); it returns true when it wrote the response itself.
	Fault func(n int64, w http.ResponseWriter, r *http.Request) bool
	// Noise, when > 0, is the chance that each grade of an answer on the
	// 0..3 scale is replaced by one of the other three, chosen at random
	// (seeded by NoiseSeed): a judge with known noise. Set both before
	// the first request.
	Noise     float64
	NoiseSeed uint64

	requests  atomic.Int64
	inFlight  atomic.Int64
	maxFlight atomic.Int64
	srv       *http.Server
	mu        sync.Mutex
	prompts   []string
	notes     []string
	malformed func(query string, attempt int) bool
	rng       *rand.Rand
}

// maxKept bounds the user messages a server keeps for Prompts.
const maxKept = 1000

// Prompts returns the user messages of the first requests answered by the
// rule (at most 1000), in arrival order.
func (s *Server) Prompts() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.prompts...)
}

// SetMalformed makes f decide, for every request from now on, whether
// the answer is malformed: f is asked with the query (the prompt's
// "Query:" line) and the attempt (0 for a first ask, n when the request
// carries n earlier answers, as a judge asking again sends them); when it
// returns true the answer is, in turn, prose, a document left out, and a
// grade off the scale. nil answers well.
func (s *Server) SetMalformed(f func(query string, attempt int) bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.malformed = f
}

// Notes returns the user turns that followed an earlier answer in the
// first requests (at most 1000): the notes of a judge asking again.
func (s *Server) Notes() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.notes...)
}

// Start starts a server on 127.0.0.1 and stops it when tb ends.
func Start(tb testing.TB) *Server {
	tb.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatalf("llmtest: %v", err)
	}
	s := &Server{URL: "http://" + l.Addr().String()}
	s.srv = &http.Server{Handler: s}
	go s.srv.Serve(l)
	tb.Cleanup(func() { _ = s.srv.Close() })
	return s
}

// Requests returns how many requests the server received.
func (s *Server) Requests() int64 { return s.requests.Load() }

// MaxInFlight returns the most requests it handled at once.
func (s *Server) MaxInFlight() int64 { return s.maxFlight.Load() }

type request struct {
	Model    string `json:"model"`
	Messages []struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	} `json:"messages"`
	MaxTokens int `json:"max_tokens"`
}

// ServeHTTP answers POST /v1/chat/completions.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n := s.requests.Add(1)
	cur := s.inFlight.Add(1)
	defer s.inFlight.Add(-1)
	for {
		m := s.maxFlight.Load()
		if cur <= m || s.maxFlight.CompareAndSwap(m, cur) {
			break
		}
	}
	if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
		http.Error(w, `{"error":{"message":"not found"}}`, http.StatusNotFound)
		return
	}
	if s.Key != "" && r.Header.Get("Authorization") != "Bearer "+s.Key {
		http.Error(w, `{"error":{"message":"invalid api key"}}`, http.StatusUnauthorized)
		return
	}
	if s.Fault != nil && s.Fault(n, w, r) {
		return
	}
	var req request
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, fmt.Sprintf(`{"error":{"message":%q}}`, err.Error()), http.StatusBadRequest)
		return
	}
	user, prompt, attempt := "", 0, 0
	var notes []string
	for _, m := range req.Messages {
		prompt += len(m.Content)
		switch {
		case m.Role == "user" && user == "":
			user = m.Content // the prompt
		case m.Role == "user":
			notes = append(notes, m.Content)
		case m.Role == "assistant":
			attempt++
		}
	}
	s.mu.Lock()
	if len(s.prompts) < maxKept {
		s.prompts = append(s.prompts, user)
	}
	if len(s.notes) < maxKept {
		s.notes = append(s.notes, notes...)
	}
	bad := s.malformed
	s.mu.Unlock()
	content := Answer(user)
	if s.Noise > 0 {
		content = s.noisy(content)
	}
	if q := queryLine.FindStringSubmatch(user); bad != nil && q != nil && bad(q[1], attempt) {
		content = malformed(content, attempt)
	}
	WriteCompletion(w, content, int64(prompt/4), int64(len(content)/4))
}

// noisy replaces each numeric grade of answer with another of 0..3 with
// chance Noise.
func (s *Server) noisy(answer string) string {
	var a struct {
		Judgments []map[string]any `json:"judgments"`
	}
	if err := json.Unmarshal([]byte(answer), &a); err != nil {
		return answer
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.rng == nil {
		s.rng = rand.New(rand.NewPCG(s.NoiseSeed, 0x6e6f697365))
	}
	for _, j := range a.Judgments {
		g, ok := j["grade"].(float64)
		if !ok || s.rng.Float64() >= s.Noise {
			continue
		}
		other := float64(s.rng.IntN(3))
		if other >= g {
			other++
		}
		j["grade"] = other
	}
	b, _ := json.Marshal(a)
	return string(b)
}

// malformed spoils a well-formed answer, by attempt in turn: prose, the
// last document left out, the first grade off the 0..3 scale.
func malformed(answer string, attempt int) string {
	var a struct {
		Judgments []map[string]any `json:"judgments"`
	}
	if err := json.Unmarshal([]byte(answer), &a); err != nil || len(a.Judgments) == 0 {
		return "I cannot grade these documents."
	}
	switch attempt % 3 {
	case 0:
		return "Here is my assessment: the first document looks relevant, the others less so."
	case 1:
		a.Judgments = a.Judgments[:len(a.Judgments)-1]
	default:
		a.Judgments[0]["grade"] = 7
	}
	b, _ := json.Marshal(a)
	return string(b)
}

// WriteCompletion writes a chat completion answering content, with usage.
func WriteCompletion(w http.ResponseWriter, content string, promptTokens, completionTokens int64) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{
		"id": "chatcmpl-test", "object": "chat.completion", "model": "test",
		"choices": []map[string]any{{"index": 0, "finish_reason": "stop",
			"message": map[string]any{"role": "assistant", "content": content}}},
		"usage": map[string]any{"prompt_tokens": promptTokens, "completion_tokens": completionTokens,
			"total_tokens": promptTokens + completionTokens},
	})
}

var (
	queryLine = regexp.MustCompile(`(?m)^Query: (.*)$`)
	docHead   = regexp.MustCompile(`(?m)^\[(D\d+)\](.*)$`)
	word      = regexp.MustCompile(`[\p{L}\p{N}]{3,}`)
)

// Answer is the rule's answer to a shipped prompt's user message.
func Answer(user string) string {
	q := queryLine.FindStringSubmatch(user)
	terms := map[string]bool{}
	if q != nil {
		for _, t := range word.FindAllString(strings.ToLower(q[1]), -1) {
			terms[t] = true
		}
	}
	hpn := strings.Contains(user, "NOT_RELEVANT")
	top := 3
	if hpn {
		top = 2
	}
	heads := docHead.FindAllStringSubmatchIndex(user, -1)
	type item struct {
		ID     string `json:"id"`
		Grade  any    `json:"grade"`
		Reason string `json:"reason"`
	}
	var items []item
	for i, h := range heads {
		end := len(user)
		if i+1 < len(heads) {
			end = heads[i+1][0]
		} else if k := strings.Index(user[h[1]:], "\nAnswer with"); k >= 0 {
			end = h[1] + k
		}
		id := user[h[2]:h[3]]
		doc := strings.ToLower(user[h[4]:end])
		seen := map[string]bool{}
		for _, t := range word.FindAllString(doc, -1) {
			if terms[t] {
				seen[t] = true
			}
		}
		g := min(len(seen), top)
		var grade any = g
		if hpn {
			grade = []string{"NOT_RELEVANT", "PARTIAL", "HIGH"}[g]
		}
		items = append(items, item{ID: id, Grade: grade, Reason: fmt.Sprintf("%d query terms", len(seen))})
	}
	b, _ := json.Marshal(map[string]any{"judgments": items})
	return string(b)
}
