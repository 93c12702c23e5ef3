package rerank

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"time"

	"github.com/fusiontune/fusiontune/internal/openai"
)

// Format is the wire shape of a reranker's /rerank endpoint.
type Format string

// The formats a Client speaks (see the package doc).
const (
	FormatCohere Format = "cohere"
	FormatTEI    Format = "tei"
)

// Formats lists the formats, the default first.
var Formats = []string{string(FormatCohere), string(FormatTEI)}

// DefaultTimeout bounds one request to the reranker when a Client's
// Timeout is 0.
const DefaultTimeout = 30 * time.Second

// Client scores documents against a query on one reranker endpoint. It is
// safe for concurrent use.
type Client struct {
	// URL is the endpoint's full address ("http://127.0.0.1:8787/rerank").
	URL string
	// Model is sent in FormatCohere requests and keys the cache.
	Model string
	// Format is the endpoint's wire shape ("": FormatCohere).
	Format Format
	// APIKey is sent as a bearer token ("" sends none).
	APIKey string
	// Timeout bounds one request (0: DefaultTimeout).
	Timeout time.Duration
	// HTTP sends the requests (nil: http.DefaultClient's transport).
	HTTP *http.Client
}

type cohereRequest struct {
	Model           string   `json:"model,omitempty"`
	Query           string   `json:"query"`
	Documents       []string `json:"documents"`
	TopN            int      `json:"top_n"`
	ReturnDocuments bool     `json:"return_documents"`
}

type cohereResponse struct {
	Results []struct {
		Index          *int     `json:"index"`
		RelevanceScore *float64 `json:"relevance_score"`
	} `json:"results"`
}

type teiRequest struct {
	Query     string   `json:"query"`
	Texts     []string `json:"texts"`
	RawScores bool     `json:"raw_scores"`
}

type teiResult struct {
	Index *int     `json:"index"`
	Score *float64 `json:"score"`
}

// Score returns the reranker's score of each document for query, in the
// order of docs, in one request. An answer that misses, repeats or
// invents an index, or holds a score that is not a finite number, is an
// error.
func (c *Client) Score(ctx context.Context, query string, docs []string) ([]float64, error) {
	if len(docs) == 0 {
		return nil, nil
	}
	timeout := c.Timeout
	if timeout == 0 {
		timeout = DefaultTimeout
	}
	oc := &openai.Client{BaseURL: c.URL, APIKey: c.APIKey, HTTP: c.HTTP, Timeout: timeout}
	var req any
	switch c.Format {
	case "", FormatCohere:
		req = cohereRequest{Model: c.Model, Query: query, Documents: docs, TopN: len(docs)}
	case FormatTEI:
		req = teiRequest{Query: query, Texts: docs}
	default:
		return nil, fmt.Errorf("rerank: format %q: want one of cohere, tei", c.Format)
	}
	body, err := oc.Post(ctx, "", req)
	if err != nil {
		return nil, fmt.Errorf("rerank: %w", err)
	}
	var idx []*int
	var scores []*float64
	if c.Format == FormatTEI {
		var res []teiResult
		if err := json.Unmarshal(body, &res); err != nil {
			return nil, fmt.Errorf("rerank: %s: decode response: %w", c.URL, err)
		}
		for _, r := range res {
			idx, scores = append(idx, r.Index), append(scores, r.Score)
		}
	} else {
		var res cohereResponse
		if err := json.Unmarshal(body, &res); err != nil {
			return nil, fmt.Errorf("rerank: %s: decode response: %w", c.URL, err)
		}
		for _, r := range res.Results {
			idx, scores = append(idx, r.Index), append(scores, r.RelevanceScore)
		}
	}
	return collect(c.URL, len(docs), idx, scores)
}

// collect places each answered score at its index, checking that every
// index of n documents is answered once with a finite score.
func collect(url string, n int, idx []*int, scores []*float64) ([]float64, error) {
	if len(idx) != n {
		return nil, fmt.Errorf("rerank: %s: %d results for %d documents", url, len(idx), n)
	}
	out := make([]float64, n)
	seen := make([]bool, n)
	for i := range idx {
		if idx[i] == nil || scores[i] == nil {
			return nil, fmt.Errorf("rerank: %s: results[%d]: index and score required", url, i)
		}
		j, s := *idx[i], *scores[i]
		if j < 0 || j >= n || seen[j] {
			return nil, fmt.Errorf("rerank: %s: results[%d].index: want each of 0..%d once (got %d)", url, i, n-1, j)
		}
		if math.IsNaN(s) || math.IsInf(s, 0) {
			return nil, fmt.Errorf("rerank: %s: results[%d]: score not finite", url, i)
		}
		seen[j], out[j] = true, s
	}
	return out, nil
}
