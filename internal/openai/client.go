package openai

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
	"time"
)

// DefaultMaxResponseBytes bounds a response body read into memory when
// Client.MaxResponseBytes is 0.
const DefaultMaxResponseBytes = 16 << 20

// Client sends requests to one OpenAI-compatible server. The zero value
// is not usable: set BaseURL. A Client is safe for concurrent use.
type Client struct {
	// BaseURL is the server's root: a request to path goes to BaseURL +
	// path (EmbeddingsPath, ChatPath).
	BaseURL string
	// APIKey is sent as "Authorization: Bearer <key>" ("" sends none).
	APIKey string
	// HTTP sends the requests (nil: a client without a timeout of its
	// own).
	HTTP *http.Client
	// Timeout bounds one attempt, the body read included (0: only HTTP's
	// own timeout).
	Timeout time.Duration
	// MaxResponseBytes bounds a body read into memory; a longer one is
	// cut there (0: DefaultMaxResponseBytes).
	MaxResponseBytes int64
	// Redact, when set, scrubs secrets from the texts an Error reports
	// (the body, the transport's error).
	Redact func(string) string
}

// URL returns the address of path on the server.
func (c *Client) URL(path string) string { return c.BaseURL + path }

// Post makes one attempt: it sends req as JSON to path and returns the
// body of a 2xx response. Any other outcome is an *Error (a request that
// does not encode, another error), retryable (Retryable) when another
// attempt may cure it: no answer, a broken connection, a body cut short,
// 429, 408 or a 5xx status. An attempt the caller's ctx ends is final.
func (c *Client) Post(ctx context.Context, path string, req any) ([]byte, error) {
	u := c.URL(path)
	body, err := json.Marshal(req)
	if err != nil {
		return nil, fmt.Errorf("encode request: %w", err)
	}
	actx := ctx
	if c.Timeout > 0 {
		var cancel context.CancelFunc
		actx, cancel = context.WithTimeout(ctx, c.Timeout)
		defer cancel()
	}
	hreq, err := http.NewRequestWithContext(actx, http.MethodPost, u, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("build request for %s: %w", u, err)
	}
	hreq.Header.Set("Content-Type", "application/json")
	hreq.Header.Set("Accept", "application/json")
	if c.APIKey != "" {
		hreq.Header.Set("Authorization", "Bearer "+c.APIKey)
	}
	hc := c.HTTP
	if hc == nil {
		hc = &http.Client{}
	}
	e := &Error{URL: u, redact: c.Redact}
	resp, err := hc.Do(hreq)
	if err != nil {
		return nil, e.failed(ctx, actx, c.Timeout, err, false)
	}
	defer resp.Body.Close()
	limit := c.MaxResponseBytes
	if limit <= 0 {
		limit = DefaultMaxResponseBytes
	}
	data, readErr := io.ReadAll(io.LimitReader(resp.Body, limit))
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		e.StatusCode, e.Status, e.Body = resp.StatusCode, resp.Status, e.scrub(string(data))
		if RetryableStatus(resp.StatusCode) {
			e.retry, e.RetryAfter = true, ParseRetryAfter(resp.Header.Get("Retry-After"), time.Now())
		}
		return nil, e
	}
	if readErr != nil {
		return nil, e.failed(ctx, actx, c.Timeout, readErr, true)
	}
	return data, nil
}

// RetryableStatus reports whether a response status is worth another
// attempt: 429 Too Many Requests, 408 Request Timeout and every 5xx.
func RetryableStatus(code int) bool {
	return code == http.StatusTooManyRequests || code == http.StatusRequestTimeout || code >= 500
}

// ParseRetryAfter reads a Retry-After header, seconds or an HTTP date,
// as the wait from now; 0 when absent, unreadable or past.
func ParseRetryAfter(h string, now time.Time) time.Duration {
	h = strings.TrimSpace(h)
	if h == "" {
		return 0
	}
	if s, err := strconv.Atoi(h); err == nil && s >= 0 {
		return time.Duration(s) * time.Second
	}
	if t, err := http.ParseTime(h); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

// Error is a failed attempt of Post: no answer, a body that could not be
// read, or a status other than 2xx. It reads "POST <url>: <status>:
// <body>" or "POST <url>: <why>", secrets redacted.
type Error struct {
	// URL is where the request went.
	URL string
	// StatusCode and Status are the response's (404, "404 Not Found");
	// 0 and "" when none came.
	StatusCode int
	Status     string
	// Body is the start of a status error's body (at most
	// Client.MaxResponseBytes), redacted.
	Body string
	// RetryAfter is the server's Retry-After with a retryable status (0
	// when it sent none).
	RetryAfter time.Duration
	// Err is why no whole response came: the transport's error (a
	// *url.Error), the body read's, or the caller's context's.
	Err error
	// Reading is set when the response came but its body could not be
	// read whole.
	Reading bool
	// Timeout is Client.Timeout when it passed before a whole answer came
	// (the call may have been billed), else 0.
	Timeout time.Duration
	// Canceled is set when the caller's context ended the attempt.
	Canceled bool

	retry  bool
	redact func(string) string
}

// failed fills e for err, the error of sending the request or (reading)
// of reading its body in an attempt under actx, ctx with timeout.
func (e *Error) failed(ctx, actx context.Context, timeout time.Duration, err error, reading bool) *Error {
	e.Err, e.Reading, e.retry = err, reading, true
	switch {
	case ctx.Err() != nil:
		e.Err, e.Canceled, e.retry = ctx.Err(), true, false
	case errors.Is(actx.Err(), context.DeadlineExceeded):
		e.Timeout = timeout
	}
	return e
}

// Error returns "POST <url>: <status>: <body>" for a status error, else
// "POST <url>: <why>".
func (e *Error) Error() string {
	switch {
	case e.StatusCode != 0:
		return fmt.Sprintf("POST %s: %s: %s", e.URL, e.Status, Quote(e.Body))
	case e.Timeout > 0 && !e.Reading:
		return fmt.Sprintf("POST %s: no answer within %s", e.URL, e.Timeout)
	case e.Reading:
		return fmt.Sprintf("POST %s: read response: %s", e.URL, e.scrub(e.Err.Error()))
	}
	return fmt.Sprintf("POST %s: %s", e.URL, e.scrub(Cause(e.Err).Error()))
}

// Unwrap returns Err (nil for a status error).
func (e *Error) Unwrap() error { return e.Err }

func (e *Error) scrub(s string) string {
	if e.redact == nil {
		return s
	}
	return e.redact(s)
}

// Cause is err without the *url.Error around a transport's error, whose
// method and address an Error names already.
func Cause(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// Quote returns the start of a response body for a message: the first
// 200 bytes, trimmed and quoted, "…" marking a cut; "(empty body)" for
// none.
func Quote(body string) string {
	const max = 200
	s := strings.TrimSpace(body)
	if len(s) > max {
		s = s[:max] + "…"
	}
	if s == "" {
		return "(empty body)"
	}
	return strconv.Quote(s)
}
