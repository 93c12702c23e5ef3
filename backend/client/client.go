package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/fusiontune/fusiontune/backend"
)

// Defaults of a Client.
const (
	DefaultTimeout      = 30 * time.Second       // per search request
	DefaultPollInterval = 100 * time.Millisecond // between /healthz probes in Ready
	DefaultReadyTimeout = 5 * time.Minute        // Ready's bound when ctx has no deadline
	excerptBytes        = 300                    // of an error body quoted in errors
)

// ErrStatus is wrapped by errors for a non-2xx HTTP status.
var ErrStatus = errors.New("unexpected HTTP status")

// Client talks to one endpoint. It is safe for concurrent use.
type Client struct {
	base         string
	http         *http.Client
	pollInterval time.Duration
	readyTimeout time.Duration
}

var _ backend.Searcher = (*Client)(nil)

// Option configures a Client.
type Option func(*Client)

// WithHTTPClient replaces the HTTP client (its Timeout bounds each request).
func WithHTTPClient(h *http.Client) Option { return func(c *Client) { c.http = h } }

// WithPollInterval sets the pause between /healthz probes in Ready.
func WithPollInterval(d time.Duration) Option { return func(c *Client) { c.pollInterval = d } }

// WithReadyTimeout bounds Ready when its context has no deadline.
func WithReadyTimeout(d time.Duration) Option { return func(c *Client) { c.readyTimeout = d } }

// New returns a client for the endpoint at baseURL, e.g.
// "http://127.0.0.1:8099" (a bare host:port gets "http://").
func New(baseURL string, opts ...Option) (*Client, error) {
	base := strings.TrimRight(baseURL, "/")
	if !strings.Contains(base, "://") {
		base = "http://" + base
	}
	if !strings.HasPrefix(base, "http://") && !strings.HasPrefix(base, "https://") {
		return nil, fmt.Errorf("client: base url %q: want http:// or https://", baseURL)
	}
	c := &Client{
		base:         base,
		http:         &http.Client{Timeout: DefaultTimeout},
		pollInterval: DefaultPollInterval,
		readyTimeout: DefaultReadyTimeout,
	}
	for _, o := range opts {
		o(c)
	}
	return c, nil
}

// BaseURL returns the endpoint's base URL.
func (c *Client) BaseURL() string { return c.base }

// Health probes GET /healthz once: nil on 200, else an error with the
// status and the body's excerpt.
func (c *Client) Health(ctx context.Context) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base+"/healthz", nil)
	if err != nil {
		return fmt.Errorf("health %s: %w", c.base, err)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("health %s: %w", c.base, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("health %s: %w", c.base, statusError(resp))
	}
	io.Copy(io.Discard, resp.Body)
	return nil
}

// Ready polls /healthz until it answers 200, ctx ends or the ready
// timeout passes; the error then carries the last probe's reason.
func (c *Client) Ready(ctx context.Context) error {
	if _, ok := ctx.Deadline(); !ok && c.readyTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.readyTimeout)
		defer cancel()
	}
	t := time.NewTicker(c.pollInterval)
	defer t.Stop()
	var last error
	for {
		err := c.Health(ctx)
		if err == nil {
			return nil
		}
		if ctx.Err() == nil || last == nil {
			last = err // keep a probe's own reason over the deadline's
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("not ready: %w (last probe: %v)", ctx.Err(), last)
		case <-t.C:
		}
	}
}

// Search posts req to /search and decodes the response.
func (c *Client) Search(ctx context.Context, req backend.SearchRequest) (backend.SearchResponse, error) {
	var out backend.SearchResponse
	body, err := json.Marshal(req)
	if err != nil {
		return out, fmt.Errorf("search: encode request: %w", err)
	}
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+"/search", bytes.NewReader(body))
	if err != nil {
		return out, fmt.Errorf("search %s: %w", c.base, err)
	}
	hreq.Header.Set("Content-Type", "application/json")
	resp, err := c.http.Do(hreq)
	if err != nil {
		return out, fmt.Errorf("search %s: %w", c.base, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return out, fmt.Errorf("search %s: %w", c.base, statusError(resp))
	}
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return out, fmt.Errorf("search %s: read response: %w", c.base, err)
	}
	if out, err = decodeResponse(data); err != nil {
		return out, fmt.Errorf("search %s: decode response: %w (body %q)", c.base, err, excerpt(data))
	}
	return out, nil
}

// Raw posts body to /search as is and returns the status and response
// body; tests use it to check byte-level determinism and error bodies.
func (c *Client) Raw(ctx context.Context, body []byte) (int, []byte, error) {
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+"/search", bytes.NewReader(body))
	if err != nil {
		return 0, nil, fmt.Errorf("search %s: %w", c.base, err)
	}
	hreq.Header.Set("Content-Type", "application/json")
	resp, err := c.http.Do(hreq)
	if err != nil {
		return 0, nil, fmt.Errorf("search %s: %w", c.base, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	return resp.StatusCode, data, err
}

// statusError describes a non-200 response: the status, and the JSON
// "error" member or an excerpt of the body.
func statusError(resp *http.Response) error {
	data, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	var e struct {
		Error string `json:"error"`
	}
	msg := excerpt(data)
	if json.Unmarshal(data, &e) == nil && e.Error != "" {
		msg = e.Error
	}
	return fmt.Errorf("%w %d %s: %s", ErrStatus, resp.StatusCode, http.StatusText(resp.StatusCode), msg)
}

func excerpt(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) > excerptBytes {
		s = s[:excerptBytes] + "…"
	}
	return s
}
