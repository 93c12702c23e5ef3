package embed

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
)

// OpenAI is the openai:<model> embedder: a client of an OpenAI-compatible
// embeddings endpoint. It sends POST {BaseURL}/v1/embeddings with
// {"model": model, "input": [texts...]} in batches of Options.BatchSize and
// reads {"data": [{"embedding": [...], "index": i}, ...]}. Requests that
// fail with 429, a 5xx status or a network error are retried
// Options.MaxRetries times with exponential backoff (or the server's
// Retry-After); other statuses fail at once. Every vector must have the
// same length (Options.Dim when set); vectors are L2-normalized. Safe for
// concurrent use.
type OpenAI struct {
	model string
	url   string
	opts  Options

	mu  sync.Mutex
	dim int // learned from the first response when Options.Dim is 0
}

var _ Embedder = (*OpenAI)(nil)

func newOpenAI(model string, opts Options) (*OpenAI, error) {
	base := strings.TrimRight(opts.BaseURL, "/")
	if !strings.HasPrefix(base, "http://") && !strings.HasPrefix(base, "https://") {
		return nil, fmt.Errorf("embed: openai:%s: base url %q must start with http:// or https://", model, opts.BaseURL)
	}
	return &OpenAI{model: model, url: base + "/v1/embeddings", opts: opts, dim: opts.Dim}, nil
}

// Name returns "openai:<model>".
func (e *OpenAI) Name() string { return "openai:" + e.model }

// Dim returns the vector length: Options.Dim, or the length learned from
// the first response (0 before any).
func (e *OpenAI) Dim() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.dim
}

// EmbedDocuments embeds texts in batches; ids are not used.
func (e *OpenAI) EmbedDocuments(ctx context.Context, ids, texts []string) ([][]float32, error) {
	out := make([][]float32, 0, len(texts))
	for lo := 0; lo < len(texts); lo += e.opts.BatchSize {
		hi := min(lo+e.opts.BatchSize, len(texts))
		vecs, err := e.embedBatch(ctx, texts[lo:hi])
		if err != nil {
			return nil, fmt.Errorf("embed: %s: texts %d-%d of %d: %w", e.Name(), lo+1, hi, len(texts), err)
		}
		out = append(out, vecs...)
	}
	return out, nil
}

// EmbedQuery embeds one query.
func (e *OpenAI) EmbedQuery(ctx context.Context, text string) ([]float32, error) {
	vecs, err := e.embedBatch(ctx, []string{text})
	if err != nil {
		return nil, fmt.Errorf("embed: %s: query: %w", e.Name(), err)
	}
	return vecs[0], nil
}

type embeddingsRequest struct {
	Model string   `json:"model"`
	Input []string `json:"input"`
}

type embeddingsResponse struct {
	Data []struct {
		Embedding []float32 `json:"embedding"`
		Index     int       `json:"index"`
	} `json:"data"`
}

// retryable marks a failure worth another attempt, with the server's
// Retry-After when it sent one.
type retryable struct {
	err  error
	wait time.Duration
}

// Error returns the underlying error's message.
func (r *retryable) Error() string { return r.err.Error() }

// Unwrap returns the underlying error.
func (r *retryable) Unwrap() error { return r.err }

// embedBatch posts one batch, retrying, and checks the answer.
func (e *OpenAI) embedBatch(ctx context.Context, texts []string) ([][]float32, error) {
	body, err := json.Marshal(embeddingsRequest{Model: e.model, Input: texts})
	if err != nil {
		return nil, fmt.Errorf("encode request: %w", err)
	}
	backoff := e.opts.RetryBackoff
	for attempt := 0; ; attempt++ {
		data, err := e.post(ctx, body)
		if err == nil {
			return e.decode(data, len(texts))
		}
		var r *retryable
		if !errors.As(err, &r) || attempt >= e.opts.MaxRetries {
			if attempt > 0 {
				return nil, fmt.Errorf("%w (after %d attempts)", err, attempt+1)
			}
			return nil, err
		}
		wait := r.wait
		if wait <= 0 {
			wait = backoff
			backoff = min(2*backoff, e.opts.MaxBackoff)
		}
		wait = min(wait, e.opts.MaxBackoff)
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, fmt.Errorf("%w (while waiting to retry after: %v)", ctx.Err(), err)
		case <-t.C:
		}
	}
}

// post sends one request. A failure worth retrying is a *retryable.
func (e *OpenAI) post(ctx context.Context, body []byte) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.url, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("build request for %s: %w", e.url, err)
	}
	req.Header.Set("Content-Type", "application/json")
	if e.opts.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+e.opts.APIKey)
	}
	resp, err := e.opts.HTTPClient.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("POST %s: %w", e.url, ctx.Err())
		}
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // the URL is already in our message
		}
		return nil, &retryable{err: fmt.Errorf("POST %s: %w", e.url, err)}
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 256<<20))
	if err != nil {
		return nil, &retryable{err: fmt.Errorf("POST %s: read response: %w", e.url, err)}
	}
	if resp.StatusCode == http.StatusOK {
		return data, nil
	}
	err = fmt.Errorf("POST %s: %s: %s", e.url, resp.Status, excerpt(data))
	if resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500 {
		var wait time.Duration
		if s, perr := strconv.Atoi(strings.TrimSpace(resp.Header.Get("Retry-After"))); perr == nil && s >= 0 {
			wait = time.Duration(s) * time.Second
		}
		return nil, &retryable{err: err, wait: wait}
	}
	return nil, err
}

// decode checks the response: one vector per input, indexes 0..n-1 each
// once, one dimension throughout.
func (e *OpenAI) decode(data []byte, n int) ([][]float32, error) {
	var r embeddingsResponse
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("decode response from %s: %w (body %s)", e.url, err, excerpt(data))
	}
	if len(r.Data) != n {
		return nil, fmt.Errorf("response from %s has %d embeddings, want %d", e.url, len(r.Data), n)
	}
	out := make([][]float32, n)
	for _, d := range r.Data {
		if d.Index < 0 || d.Index >= n || out[d.Index] != nil {
			return nil, fmt.Errorf("response from %s: bad or repeated index %d (want each of 0-%d once)", e.url, d.Index, n-1)
		}
		if len(d.Embedding) == 0 {
			return nil, fmt.Errorf("response from %s: empty embedding at index %d", e.url, d.Index)
		}
		out[d.Index] = d.Embedding
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	for i, v := range out {
		if e.dim == 0 {
			e.dim = len(v)
		}
		if len(v) != e.dim {
			return nil, fmt.Errorf("response from %s: embedding %d has %d dimensions, want %d", e.url, i, len(v), e.dim)
		}
		Normalize(v)
	}
	return out, nil
}

// excerpt returns the start of a response body, for error messages.
func excerpt(b []byte) string {
	const max = 200
	s := strings.TrimSpace(string(b))
	if len(s) > max {
		s = s[:max] + "…"
	}
	if s == "" {
		return "(empty body)"
	}
	return strconv.Quote(s)
}
