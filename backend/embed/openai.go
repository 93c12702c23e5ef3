package embed

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/fusiontune/fusiontune/internal/openai"
)

// OpenAI is the openai:<model> embedder: a client of an OpenAI-compatible
// embeddings endpoint. It sends POST {BaseURL}/v1/embeddings with
// {"model": model, "input": [texts...]} in batches of Options.BatchSize and
// reads {"data": [{"embedding": [...], "index": i}, ...]}, through the
// OpenAI-compatible client of internal/openai: requests that fail with
// 429, 408, a 5xx status or a network error are retried
// Options.MaxRetries times with exponential backoff (or the server's
// Retry-After); other statuses fail at once. Every vector must have the
// same length (Options.Dim when set); vectors are L2-normalized. Safe for
// concurrent use.
type OpenAI struct {
	model  string
	url    string
	opts   Options
	client *openai.Client
	retry  openai.Retry

	mu  sync.Mutex
	dim int // learned from the first response when Options.Dim is 0
}

var _ Embedder = (*OpenAI)(nil)

// maxResponseBytes bounds an embeddings response read into memory.
const maxResponseBytes = 256 << 20

func newOpenAI(model string, opts Options) (*OpenAI, error) {
	base := strings.TrimRight(opts.BaseURL, "/")
	if !strings.HasPrefix(base, "http://") && !strings.HasPrefix(base, "https://") {
		return nil, fmt.Errorf("embed: openai:%s: base url %q must start with http:// or https://", model, opts.BaseURL)
	}
	c := &openai.Client{BaseURL: base, APIKey: opts.APIKey, HTTP: opts.HTTPClient, MaxResponseBytes: maxResponseBytes}
	return &OpenAI{model: model, url: c.URL(openai.EmbeddingsPath), opts: opts, client: c, dim: opts.Dim,
		retry: openai.Retry{Retries: opts.MaxRetries, Backoff: opts.RetryBackoff, MaxBackoff: opts.MaxBackoff, MaxRetryAfter: opts.MaxBackoff}}, nil
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

// embedBatch posts one batch, retrying, and checks the answer.
func (e *OpenAI) embedBatch(ctx context.Context, texts []string) ([][]float32, error) {
	var data []byte
	n, err := e.retry.Do(ctx, func(ctx context.Context) (err error) {
		data, err = e.client.Post(ctx, openai.EmbeddingsPath, openai.EmbeddingsRequest{Model: e.model, Input: texts})
		return err
	})
	var stopped *openai.Interrupted
	switch {
	case err == nil:
		return e.decode(data, len(texts))
	case errors.As(err, &stopped):
		return nil, fmt.Errorf("%w (while waiting to retry after: %v)", ctx.Err(), stopped.Err)
	case n > 1:
		return nil, fmt.Errorf("%w (after %d attempts)", err, n)
	}
	return nil, err
}

// decode checks the response: one vector per input, indexes 0..n-1 each
// once, one dimension throughout.
func (e *OpenAI) decode(data []byte, n int) ([][]float32, error) {
	var r openai.EmbeddingsResponse
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("decode response from %s: %w (body %s)", e.url, err, openai.Quote(string(data)))
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
