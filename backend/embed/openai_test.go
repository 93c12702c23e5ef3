package embed_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fusiontune/fusiontune/backend/embed"
)

// fakeServer is an OpenAI-compatible /v1/embeddings peer on loopback. Its
// model is hash-<dim>; it answers data in reverse order (clients must use
// "index"); fail, when set, may override the answer to request n (1-based).
type fakeServer struct {
	*httptest.Server
	dim int

	mu       sync.Mutex
	requests int
	batches  [][]string
	auth     []string
	fail     func(n int, w http.ResponseWriter, r *http.Request) bool
}

func newFakeServer(t *testing.T, dim int) *fakeServer {
	s := &fakeServer{dim: dim}
	s.Server = httptest.NewServer(http.HandlerFunc(s.handle))
	t.Cleanup(s.Close)
	return s
}

func (s *fakeServer) handle(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.requests++
	n, fail, dim := s.requests, s.fail, s.dim
	s.auth = append(s.auth, r.Header.Get("Authorization"))
	s.mu.Unlock()
	if r.Method != http.MethodPost || r.URL.Path != "/v1/embeddings" {
		http.Error(w, "not found", http.StatusNotFound)
		return
	}
	if fail != nil && fail(n, w, r) {
		return
	}
	var req struct {
		Model string   `json:"model"`
		Input []string `json:"input"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Model == "" {
		http.Error(w, `{"error": "bad request"}`, http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	s.batches = append(s.batches, req.Input)
	s.mu.Unlock()
	type datum struct {
		Embedding []float32 `json:"embedding"`
		Index     int       `json:"index"`
	}
	var resp struct {
		Data []datum `json:"data"`
	}
	vecs, _ := embed.NewHash(dim).EmbedDocuments(r.Context(), nil, req.Input)
	for i := len(vecs) - 1; i >= 0; i-- {
		scaled := slices.Clone(vecs[i])
		for j := range scaled {
			scaled[j] *= 3 // not normalized: the client must normalize
		}
		resp.Data = append(resp.Data, datum{Embedding: scaled, Index: i})
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(resp)
}

func (s *fakeServer) setFail(f func(n int, w http.ResponseWriter, r *http.Request) bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fail = f
}

func (s *fakeServer) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests
}

func fastOptions(url string) embed.Options {
	return embed.Options{BaseURL: url, APIKey: "sk-test", RetryBackoff: time.Millisecond, MaxBackoff: 5 * time.Millisecond}
}

func TestOpenAIBatches(t *testing.T) {
	s := newFakeServer(t, 16)
	opts := fastOptions(s.URL + "/")
	opts.BatchSize = 3
	e, err := embed.New("openai:fake-model", opts)
	if err != nil {
		t.Fatal(err)
	}
	texts := []string{"one", "two", "three", "four", "five", "six", "seven"}
	got := embedAll(t, e, texts)
	want := embedAll(t, embed.NewHash(16), texts)
	for i := range texts {
		if !close32(got[i], want[i]) {
			t.Errorf("text %d %q: got %v, want %v", i, texts[i], got[i], want[i])
		}
	}
	if e.Dim() != 16 {
		t.Errorf("Dim() = %d after a response, want 16", e.Dim())
	}
	wantBatches := [][]string{{"one", "two", "three"}, {"four", "five", "six"}, {"seven"}}
	s.mu.Lock()
	batches, auth := fmt.Sprint(s.batches), s.auth[0]
	s.mu.Unlock()
	if batches != fmt.Sprint(wantBatches) {
		t.Errorf("batches %v, want %v", batches, wantBatches)
	}
	if auth != "Bearer sk-test" {
		t.Errorf("Authorization %q, want the bearer key", auth)
	}
	if q := query(t, e, "three"); !close32(q, want[2]) {
		t.Errorf("EmbedQuery: got %v, want %v", q, want[2])
	}
}

func TestOpenAIRetries(t *testing.T) {
	tests := []struct {
		name       string
		maxRetries int
		fail       func(n int, w http.ResponseWriter, r *http.Request) bool
		requests   int
		wantErr    []string // empty: success
	}{
		{
			name: "429 then success", maxRetries: 4, requests: 3,
			fail: func(n int, w http.ResponseWriter, r *http.Request) bool {
				if n <= 2 {
					w.Header().Set("Retry-After", "0")
					http.Error(w, "slow down", http.StatusTooManyRequests)
					return true
				}
				return false
			},
		},
		{
			name: "500 forever", maxRetries: 2, requests: 3,
			fail: func(n int, w http.ResponseWriter, r *http.Request) bool {
				http.Error(w, `{"error": "model overloaded"}`, http.StatusInternalServerError)
				return true
			},
			wantErr: []string{"500 Internal Server Error", "model overloaded", "/v1/embeddings", "after 3 attempts"},
		},
		{
			name: "400 is not retried", maxRetries: 4, requests: 1,
			fail: func(n int, w http.ResponseWriter, r *http.Request) bool {
				http.Error(w, `{"error": "input too long"}`, http.StatusBadRequest)
				return true
			},
			wantErr: []string{"400 Bad Request", "input too long"},
		},
		{
			name: "wrong count", maxRetries: 4, requests: 1,
			fail: func(n int, w http.ResponseWriter, r *http.Request) bool {
				fmt.Fprint(w, `{"data": []}`)
				return true
			},
			wantErr: []string{"has 0 embeddings, want 1"},
		},
		{
			name: "not json", maxRetries: 4, requests: 1,
			fail: func(n int, w http.ResponseWriter, r *http.Request) bool {
				fmt.Fprint(w, `<html>proxy error</html>`)
				return true
			},
			wantErr: []string{"decode response", "proxy error"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newFakeServer(t, 8)
			s.setFail(tt.fail)
			opts := fastOptions(s.URL)
			opts.MaxRetries = tt.maxRetries
			e, err := embed.New("openai:m", opts)
			if err != nil {
				t.Fatal(err)
			}
			_, err = e.EmbedQuery(context.Background(), "hello")
			if got := s.count(); got != tt.requests {
				t.Errorf("%d requests, want %d", got, tt.requests)
			}
			if len(tt.wantErr) == 0 {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatal("no error")
			}
			t.Logf("error: %v", err)
			for _, w := range tt.wantErr {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}

func TestOpenAIDimensions(t *testing.T) {
	s := newFakeServer(t, 8)
	opts := fastOptions(s.URL)
	opts.Dim = 12
	e, _ := embed.New("openai:m", opts)
	if _, err := e.EmbedQuery(context.Background(), "x"); err == nil || !strings.Contains(err.Error(), "has 8 dimensions, want 12") {
		t.Errorf("configured dimension: got %v", err)
	}

	e, _ = embed.New("openai:m", fastOptions(s.URL))
	query(t, e, "first response fixes 8")
	s.mu.Lock()
	s.dim = 9
	s.mu.Unlock()
	if _, err := e.EmbedQuery(context.Background(), "y"); err == nil || !strings.Contains(err.Error(), "has 9 dimensions, want 8") {
		t.Errorf("changed dimension: got %v", err)
	}
}

func TestOpenAIUnreachable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String()
	ln.Close()
	opts := fastOptions(url)
	opts.MaxRetries = 1
	e, _ := embed.New("openai:m", opts)
	_, err = e.EmbedDocuments(context.Background(), nil, []string{"a"})
	t.Logf("error: %v", err)
	if err == nil || !strings.Contains(err.Error(), url+"/v1/embeddings") || !strings.Contains(err.Error(), "after 2 attempts") {
		t.Errorf("got %v, want an error naming %s after 2 attempts", err, url)
	}
}

func TestOpenAICanceled(t *testing.T) {
	s := newFakeServer(t, 8)
	arrived, returned := make(chan struct{}), make(chan struct{})
	var once sync.Once
	s.setFail(func(n int, w http.ResponseWriter, r *http.Request) bool {
		io.Copy(io.Discard, r.Body) // lets the server notice the client hanging up
		once.Do(func() { close(arrived) })
		select { // hold the request until the client gives up
		case <-r.Context().Done():
		case <-returned:
		}
		return true
	})
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-arrived; cancel() }()
	e, _ := embed.New("openai:m", fastOptions(s.URL))
	_, err := e.EmbedQuery(ctx, "x")
	close(returned)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("got %v, want context.Canceled", err)
	}
}

// BenchmarkEmbedQueryOpenAI measures one EmbedQuery round trip to the
// loopback fake server (client overhead plus the fake's hash-256).
func BenchmarkEmbedQueryOpenAI(b *testing.B) {
	s := &fakeServer{dim: 256}
	s.Server = httptest.NewServer(http.HandlerFunc(s.handle))
	defer s.Close()
	e, _ := embed.New("openai:m", fastOptions(s.URL))
	for b.Loop() {
		if _, err := e.EmbedQuery(context.Background(), "what is hybrid search"); err != nil {
			b.Fatal(err)
		}
	}
}
