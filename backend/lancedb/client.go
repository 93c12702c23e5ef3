package lancedb

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/fusiontune/fusiontune/backend/fusion"
)

// Client speaks the sidecar's protocol (sidecar/server.mjs).
type Client struct {
	url  string
	http *http.Client
}

// NewClient returns a client of the sidecar at url.
func NewClient(url string) *Client {
	return &Client{url: strings.TrimRight(url, "/"), http: &http.Client{Timeout: 10 * time.Minute}}
}

// Table names a table and its columns.
type Table struct {
	URI    string `json:"uri"`
	Name   string `json:"table"`
	ID     string `json:"id"`
	Text   string `json:"text"`
	Vector string `json:"vector"`
}

// Row is a row of a table the kind creates.
type Row struct {
	ID     string    `json:"id"`
	Text   string    `json:"text"`
	Vector []float32 `json:"vector"`
}

// Hit is a row of an answer: its row id, its id column and its score
// (the hybrid answer's _relevance_score, the full-text leg's _score, the
// vector leg's -_distance).
type Hit struct {
	Row   string  `json:"row"`
	ID    string  `json:"id"`
	Score float64 `json:"score"`
}

// Query is one search.
type Query struct {
	Table
	Text     string    `json:"query"`
	Vector   []float32 `json:"embedding"`
	Limit    int       `json:"limit"`
	K        float64   `json:"k"`
	Distance string    `json:"distance"`
	Hybrid   bool      `json:"hybrid"`
	Legs     bool      `json:"legs"`
}

// Answer is a search's answer: the hybrid query's hits, and each leg's
// when asked. Empty names a leg that found nothing when LanceDB failed the
// hybrid query for it ("vector" or "fts"; Hits is then nil and both legs
// are set).
type Answer struct {
	Hits   []Hit  `json:"hits"`
	Vector []Hit  `json:"vector"`
	FTS    []Hit  `json:"fts"`
	Empty  string `json:"empty"`
}

// Ready returns nil when the sidecar answers its health check.
func (c *Client) Ready(ctx context.Context) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.url+"/healthz", nil)
	if err != nil {
		return err
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("lancedb: sidecar: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("lancedb: sidecar: health check: status %d", resp.StatusCode)
	}
	return nil
}

// Create creates (or overwrites) table t of rows, its columns named as t
// names them, with an FTS index on its text column.
func (c *Client) Create(ctx context.Context, t Table, rows []Row) error {
	return c.post(ctx, "/create", struct {
		Table
		Rows []Row `json:"rows"`
	}{t, rows}, nil)
}

// Open checks the user's table t (its columns, an FTS index on its text
// column) without changing it and returns its vector dimension.
func (c *Client) Open(ctx context.Context, t Table) (int, error) {
	var out struct {
		Rows int `json:"rows"`
		Dim  int `json:"dim"`
	}
	err := c.post(ctx, "/open", t, &out)
	return out.Dim, err
}

// Search runs q.
func (c *Client) Search(ctx context.Context, q Query) (Answer, error) {
	var a Answer
	err := c.post(ctx, "/search", q, &a)
	return a, err
}

func (c *Client) post(ctx context.Context, path string, in, out any) error {
	body, err := json.Marshal(in)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url+path, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("lancedb: sidecar %s: %w", path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("lancedb: sidecar %s: %w", path, err)
	}
	if resp.StatusCode != http.StatusOK {
		var e struct {
			Error string `json:"error"`
		}
		if json.Unmarshal(data, &e) == nil && e.Error != "" {
			return fmt.Errorf("lancedb: %s", e.Error)
		}
		return fmt.Errorf("lancedb: sidecar %s: status %d", path, resp.StatusCode)
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("lancedb: sidecar %s: %w", path, err)
	}
	return nil
}

// Candidates turns a leg's hits into fusion candidates for
// fusion.LanceDBRRF: ID the row id, DocID the id column.
func Candidates(hits []Hit) []fusion.Candidate {
	out := make([]fusion.Candidate, len(hits))
	for i, h := range hits {
		out[i] = fusion.Candidate{ID: h.Row, DocID: h.ID, Score: h.Score, Rank: i + 1}
	}
	return out
}
