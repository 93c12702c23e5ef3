package openai_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fusiontune/fusiontune/internal/openai"
)

// fast is a retry policy whose waits do not slow the tests: 1 ms doubled,
// at most 4 ms; a server's Retry-After up to 2 s.
var fast = openai.Retry{Retries: 3, Backoff: time.Millisecond, MaxBackoff: 4 * time.Millisecond, MaxRetryAfter: 2 * time.Second}

// server answers the n-th request (1-based) with answer.
func server(t *testing.T, answer func(n int64, w http.ResponseWriter, r *http.Request)) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var n atomic.Int64
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		answer(n.Add(1), w, r)
	}))
	t.Cleanup(s.Close)
	return s, &n
}

// status answers the first times requests with code (and Retry-After
// header when set), then 200 with {"data": []}.
func status(code int, times int64, header string) func(int64, http.ResponseWriter, *http.Request) {
	return func(n int64, w http.ResponseWriter, _ *http.Request) {
		if n <= times {
			if header != "" {
				w.Header().Set("Retry-After", header)
			}
			http.Error(w, `{"error": "no"}`, code)
			return
		}
		io.WriteString(w, `{"data": []}`)
	}
}

// TestDo: statuses 429, 408 and 5xx are retried, other 4xx are final; a
// storm gives up after Retries+1 attempts with the last status; a
// Retry-After in seconds or as an HTTP date is waited for.
func TestDo(t *testing.T) {
	tests := []struct {
		name      string
		answer    func(int64, http.ResponseWriter, *http.Request)
		attempts  int64
		status    int // the error's; 0: success
		minWait   time.Duration
		retryable bool
	}{
		{name: "429 then success", answer: status(429, 2, ""), attempts: 3},
		{name: "408 then success", answer: status(408, 1, ""), attempts: 2},
		{name: "503 then success", answer: status(503, 3, ""), attempts: 4},
		{name: "500 storm", answer: status(500, 100, ""), attempts: 4, status: 500, retryable: true},
		{name: "400 final", answer: status(400, 100, ""), attempts: 1, status: 400},
		{name: "401 final", answer: status(401, 100, ""), attempts: 1, status: 401},
		{name: "404 final", answer: status(404, 100, ""), attempts: 1, status: 404},
		{name: "Retry-After seconds", answer: status(429, 1, "1"), attempts: 2, minWait: time.Second},
		{name: "Retry-After date", answer: func(n int64, w http.ResponseWriter, r *http.Request) {
			// Two seconds ahead, at a second's resolution: at least one.
			status(503, 1, time.Now().Add(2*time.Second).UTC().Format(http.TimeFormat))(n, w, r)
		}, attempts: 2, minWait: 900 * time.Millisecond},
		{name: "Retry-After zero", answer: status(429, 1, "0"), attempts: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, n := server(t, tt.answer)
			c := &openai.Client{BaseURL: s.URL}
			start := time.Now()
			attempts, err := fast.Do(context.Background(), func(ctx context.Context) error {
				_, err := c.Post(ctx, openai.EmbeddingsPath, openai.EmbeddingsRequest{Model: "m", Input: []string{"x"}})
				return err
			})
			if n.Load() != tt.attempts || int64(attempts) != tt.attempts {
				t.Fatalf("%d requests, Do counted %d; want %d", n.Load(), attempts, tt.attempts)
			}
			if elapsed := time.Since(start); elapsed < tt.minWait {
				t.Errorf("done after %s, before the Retry-After's %s", elapsed, tt.minWait)
			}
			if tt.status == 0 {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			var e *openai.Error
			if !errors.As(err, &e) || e.StatusCode != tt.status || e.URL != s.URL+openai.EmbeddingsPath {
				t.Fatalf("err = %v, want an *Error with status %d", err, tt.status)
			}
			if again, _ := openai.Retryable(err); again != tt.retryable {
				t.Errorf("Retryable = %v, want %v", again, tt.retryable)
			}
			if !strings.Contains(err.Error(), `"{\"error\": \"no\"}"`) {
				t.Errorf("message %q lacks the body", err)
			}
		})
	}
}

// TestWait: the backoff doubles up to its cap, a Retry-After replaces it
// up to its cap, and jitter stays within its fraction.
func TestWait(t *testing.T) {
	p := openai.Retry{Backoff: 100 * time.Millisecond, MaxBackoff: 350 * time.Millisecond, MaxRetryAfter: time.Second}
	for _, tt := range []struct {
		n          int
		retryAfter time.Duration
		want       time.Duration
	}{
		{1, 0, 100 * time.Millisecond},
		{2, 0, 200 * time.Millisecond},
		{3, 0, 350 * time.Millisecond},
		{60, 0, 350 * time.Millisecond},
		{1, 700 * time.Millisecond, 700 * time.Millisecond},
		{5, time.Minute, time.Second},
	} {
		if got := p.Wait(tt.n, tt.retryAfter); got != tt.want {
			t.Errorf("Wait(%d, %s) = %s, want %s", tt.n, tt.retryAfter, got, tt.want)
		}
	}
	p.Jitter = 0.2
	for range 100 {
		if got := p.Wait(2, 0); got < 160*time.Millisecond || got > 240*time.Millisecond {
			t.Fatalf("Wait with 20%% jitter = %s, want 200ms ± 20%%", got)
		}
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		h    string
		want time.Duration
	}{
		{"", 0},
		{"7", 7 * time.Second},
		{" 0 ", 0},
		{"-3", 0},
		{"soon", 0},
		{now.Add(90 * time.Second).Format(http.TimeFormat), 90 * time.Second},
		{now.Add(-time.Minute).Format(http.TimeFormat), 0},
	} {
		if got := openai.ParseRetryAfter(tt.h, now); got != tt.want {
			t.Errorf("ParseRetryAfter(%q) = %s, want %s", tt.h, got, tt.want)
		}
	}
}

// TestPostFailures: a request that gets no answer in time, a refused
// connection, the caller's context ending (final, even mid-wait), and a
// body over the bound (cut there).
func TestPostFailures(t *testing.T) {
	t.Run("timeout", func(t *testing.T) {
		s, n := server(t, func(_ int64, w http.ResponseWriter, r *http.Request) {
			io.Copy(io.Discard, r.Body)
			select {
			case <-r.Context().Done():
			case <-time.After(5 * time.Second):
			}
		})
		c := &openai.Client{BaseURL: s.URL, Timeout: 50 * time.Millisecond}
		p := fast
		p.Retries = 1
		_, err := p.Do(context.Background(), func(ctx context.Context) error {
			_, err := c.Post(ctx, openai.ChatPath, openai.ChatRequest{Model: "m"})
			return err
		})
		var e *openai.Error
		if !errors.As(err, &e) || e.Timeout != 50*time.Millisecond || e.Canceled || n.Load() != 2 {
			t.Fatalf("err %v after %d requests; want a timeout, retried once", err, n.Load())
		}
		if want := "POST " + s.URL + openai.ChatPath + ": no answer within 50ms"; err.Error() != want {
			t.Errorf("message %q, want %q", err, want)
		}
	})
	t.Run("refused", func(t *testing.T) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		url := "http://" + ln.Addr().String()
		ln.Close()
		c := &openai.Client{BaseURL: url}
		attempts, err := fast.Do(context.Background(), func(ctx context.Context) error {
			_, err := c.Post(ctx, openai.EmbeddingsPath, nil)
			return err
		})
		if again, _ := openai.Retryable(err); !again || attempts != 4 || !strings.HasPrefix(err.Error(), "POST "+url+"/v1/embeddings: dial tcp") {
			t.Fatalf("err %v after %d attempts; want a retried refusal naming the address", err, attempts)
		}
	})
	t.Run("canceled in flight", func(t *testing.T) {
		arrived, returned := make(chan struct{}), make(chan struct{})
		s, n := server(t, func(_ int64, w http.ResponseWriter, r *http.Request) {
			io.Copy(io.Discard, r.Body) // lets the server notice the client hanging up
			close(arrived)
			select {
			case <-r.Context().Done():
			case <-returned:
			}
		})
		ctx, cancel := context.WithCancel(context.Background())
		go func() { <-arrived; cancel() }()
		c := &openai.Client{BaseURL: s.URL}
		_, err := fast.Do(ctx, func(ctx context.Context) error {
			_, err := c.Post(ctx, openai.EmbeddingsPath, nil)
			return err
		})
		close(returned)
		var e *openai.Error
		if !errors.Is(err, context.Canceled) || !errors.As(err, &e) || !e.Canceled || n.Load() != 1 {
			t.Fatalf("err %v after %d requests; want context.Canceled, final", err, n.Load())
		}
		if again, _ := openai.Retryable(err); again {
			t.Error("a canceled attempt is retryable")
		}
	})
	t.Run("canceled while waiting", func(t *testing.T) {
		s, n := server(t, status(503, 100, "60"))
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		c := &openai.Client{BaseURL: s.URL}
		start := time.Now()
		_, err := fast.Do(ctx, func(ctx context.Context) error {
			_, err := c.Post(ctx, openai.EmbeddingsPath, nil)
			return err
		})
		var in *openai.Interrupted
		var e *openai.Error
		if !errors.As(err, &in) || !errors.As(err, &e) || e.StatusCode != 503 || n.Load() != 1 || time.Since(start) > 10*time.Second {
			t.Fatalf("err %v after %d requests; want the 503 Interrupted at once", err, n.Load())
		}
	})
	t.Run("body bound", func(t *testing.T) {
		s, _ := server(t, func(_ int64, w http.ResponseWriter, _ *http.Request) {
			io.WriteString(w, strings.Repeat("x", 1000))
		})
		c := &openai.Client{BaseURL: s.URL, MaxResponseBytes: 100}
		data, err := c.Post(context.Background(), openai.ChatPath, nil)
		if err != nil || len(data) != 100 {
			t.Fatalf("%d bytes, %v; want the first 100", len(data), err)
		}
	})
	t.Run("not encodable", func(t *testing.T) {
		c := &openai.Client{BaseURL: "http://127.0.0.1:1"}
		_, err := c.Post(context.Background(), openai.ChatPath, func() {})
		if again, _ := openai.Retryable(err); again || err == nil || !strings.HasPrefix(err.Error(), "encode request: ") {
			t.Fatalf("err %v, want a final encode error", err)
		}
	})
}

// TestPostRequest: the body is the request's JSON, with the bearer key and
// the JSON content headers.
func TestPostRequest(t *testing.T) {
	var got *http.Request
	var body []byte
	s, _ := server(t, func(_ int64, w http.ResponseWriter, r *http.Request) {
		got, body = r, must(io.ReadAll(r.Body))
		io.WriteString(w, `{"choices": []}`)
	})
	c := &openai.Client{BaseURL: s.URL, APIKey: "sk-test"}
	data, err := c.Post(context.Background(), openai.ChatPath, openai.ChatRequest{Model: "m", MaxTokens: 5,
		Messages: []openai.ChatMessage{{Role: "user", Content: "hi"}}})
	if err != nil || string(data) != `{"choices": []}` {
		t.Fatalf("%s, %v", data, err)
	}
	if got.URL.Path != openai.ChatPath || got.Header.Get("Authorization") != "Bearer sk-test" ||
		got.Header.Get("Content-Type") != "application/json" || got.Header.Get("Accept") != "application/json" {
		t.Errorf("request %s %s, headers %v", got.Method, got.URL, got.Header)
	}
	if want := `{"model":"m","messages":[{"role":"user","content":"hi"}],"temperature":0,"max_tokens":5}`; string(body) != want {
		t.Errorf("body %s\nwant %s", body, want)
	}
}

// TestRedact: a server echoing the key in its error has it redacted from
// the Error's body and message.
func TestRedact(t *testing.T) {
	const key = "sk-live-0123456789abcdef"
	s, _ := server(t, func(_ int64, w http.ResponseWriter, r *http.Request) {
		http.Error(w, "invalid key: "+strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "), http.StatusUnauthorized)
	})
	c := &openai.Client{BaseURL: s.URL, APIKey: key, Redact: func(s string) string { return strings.ReplaceAll(s, key, "[redacted]") }}
	_, err := c.Post(context.Background(), openai.EmbeddingsPath, nil)
	var e *openai.Error
	if !errors.As(err, &e) || strings.Contains(err.Error(), key) || strings.Contains(e.Body, key) || !strings.Contains(err.Error(), "invalid key: [redacted]") {
		t.Fatalf("err %v (body %q): want the key redacted", err, e.Body)
	}
}

// TestTemporary: an error the caller marks Temporary is retried, others
// it returns are final.
func TestTemporary(t *testing.T) {
	final := errors.New("final")
	for _, tt := range []struct {
		err  error
		want int
	}{{openai.Temporary(errors.New("cut short")), 4}, {final, 1}} {
		n, err := fast.Do(context.Background(), func(context.Context) error { return tt.err })
		if n != tt.want || !errors.Is(err, tt.err) {
			t.Errorf("%v: %d attempts, %v; want %d", tt.err, n, err, tt.want)
		}
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
