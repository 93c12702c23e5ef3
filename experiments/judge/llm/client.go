package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// chatRequest is the body of POST /v1/chat/completions.
type chatRequest struct {
	Model       string        `json:"model"`
	Messages    []chatMessage `json:"messages"`
	Temperature float64       `json:"temperature"`
	MaxTokens   int           `json:"max_tokens"`
	Seed        *int64        `json:"seed,omitempty"`
}

type chatMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// chatResponse is the part of a chat completion the judge reads.
type chatResponse struct {
	Choices []struct {
		Message struct {
			Content *string `json:"content"`
		} `json:"message"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens     int64 `json:"prompt_tokens"`
		CompletionTokens int64 `json:"completion_tokens"`
		TotalTokens      int64 `json:"total_tokens"`
	} `json:"usage"`
}

// completion is one successful call's answer.
type completion struct {
	content string
	tokens  int64 // -1 when the server reported no usage
}

// ErrHTTP is wrapped by errors about a response that is not a usable chat
// completion (a status that is no success, a body that is not the JSON of
// one).
var ErrHTTP = errors.New("chat completions request failed")

// retryable marks an attempt's error as worth another attempt, with the
// server's Retry-After when it sent one.
type retryable struct {
	err        error
	retryAfter time.Duration
	timedOut   bool // no answer within the timeout: the call may have been billed
}

func (r *retryable) Error() string { return r.err.Error() }
func (r *retryable) Unwrap() error { return r.err }

// post makes one attempt: it sends req and returns the completion, a
// *retryable error for what another attempt may cure (429, 5xx, 408, a
// timeout or a broken connection, a truncated body), or a final error.
func (j *Judge) post(parent context.Context, body []byte) (completion, error) {
	ctx, cancel := context.WithTimeout(parent, j.cfg.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, j.endpoint, bytes.NewReader(body))
	if err != nil {
		return completion{}, fmt.Errorf("%w: %v", ErrHTTP, err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if j.cfg.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+j.cfg.APIKey)
	}
	resp, err := j.client.Do(req)
	if err != nil {
		return completion{}, j.sendErr(parent, ctx, err)
	}
	defer resp.Body.Close()
	data, readErr := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes))
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		msg := fmt.Errorf("%w: HTTP %d from %s: %s", ErrHTTP, resp.StatusCode, j.endpoint, excerpt(j.redact(string(data))))
		if resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusRequestTimeout || resp.StatusCode >= 500 {
			return completion{}, &retryable{err: msg, retryAfter: retryAfter(resp.Header.Get("Retry-After"), time.Now())}
		}
		return completion{}, msg
	}
	if readErr != nil {
		if parent.Err() != nil {
			return completion{}, fmt.Errorf("%w: %w", ErrHTTP, context.Cause(parent))
		}
		return completion{}, &retryable{err: fmt.Errorf("%w: reading the response: %v", ErrHTTP, j.redact(readErr.Error())),
			timedOut: errors.Is(ctx.Err(), context.DeadlineExceeded)}
	}
	return j.completionOf(data)
}

// sendErr is the error of a request that got no response (err), sent
// under ctx within parent: parent's end is final; a timeout (the call may
// have been billed), a network or connection failure is retryable; the
// rest is final.
func (j *Judge) sendErr(parent, ctx context.Context, err error) error {
	if parent.Err() != nil {
		return fmt.Errorf("%w: %w", ErrHTTP, context.Cause(parent))
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return &retryable{err: fmt.Errorf("%w: no answer within %s from %s", ErrHTTP, j.cfg.Timeout, j.endpoint), timedOut: true}
	}
	var ne net.Error
	if errors.As(err, &ne) || isConnErr(err) {
		return &retryable{err: fmt.Errorf("%w: %v", ErrHTTP, j.redact(err.Error()))}
	}
	return fmt.Errorf("%w: %v", ErrHTTP, j.redact(err.Error()))
}

// completionOf reads a chat completion's body: its first choice's content
// and the tokens used (-1 when not reported). A body that is not its JSON
// is retryable (cut short: another attempt may get it whole); one without
// content is final; an answer cut off at max_tokens is ErrBadAnswer.
func (j *Judge) completionOf(data []byte) (completion, error) {
	var cr chatResponse
	if err := json.Unmarshal(data, &cr); err != nil {
		return completion{}, &retryable{err: fmt.Errorf("%w: the response is not a chat completion's JSON (%v): %s", ErrHTTP, err, excerpt(j.redact(string(data))))}
	}
	if len(cr.Choices) == 0 || cr.Choices[0].Message.Content == nil {
		return completion{}, fmt.Errorf("%w: the response has no choices[0].message.content: %s", ErrHTTP, excerpt(j.redact(string(data))))
	}
	c := completion{content: *cr.Choices[0].Message.Content, tokens: -1}
	if cr.Usage != nil {
		c.tokens = cr.Usage.TotalTokens
		if c.tokens == 0 {
			c.tokens = cr.Usage.PromptTokens + cr.Usage.CompletionTokens
		}
	}
	if cr.Choices[0].FinishReason == "length" {
		return c, fmt.Errorf("%w: the answer was cut off at max_tokens: %s", ErrBadAnswer, excerpt(j.redact(c.content)))
	}
	return c, nil
}

// maxResponseBytes bounds a response body read into memory.
const maxResponseBytes = 16 << 20

func isConnErr(err error) bool {
	msg := err.Error()
	return errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) ||
		strings.Contains(msg, "connection reset") || strings.Contains(msg, "connection refused") || strings.Contains(msg, "broken pipe")
}

// retryAfter parses a Retry-After header: seconds or an HTTP date; 0 when
// absent or unreadable.
func retryAfter(h string, now time.Time) time.Duration {
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

// excerpt shortens text for a message.
func excerpt(s string) string {
	s = strings.TrimSpace(s)
	const n = 200
	if len(s) > n {
		cut := n
		for cut > 0 && !utf8Start(s[cut]) {
			cut--
		}
		return fmt.Sprintf("%q…", s[:cut])
	}
	return fmt.Sprintf("%q", s)
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }

// call sends one request with retries: every attempt is admitted by the
// budget first (bound tokens) and charged after. It returns the last
// attempt's error when all fail.
func (j *Judge) call(ctx context.Context, req chatRequest, bound int64) (completion, error) {
	body, err := json.Marshal(req)
	if err != nil {
		return completion{}, fmt.Errorf("encode request: %w", err)
	}
	var last error
	for attempt := 0; attempt <= j.cfg.Retries; attempt++ {
		if attempt > 0 {
			wait := j.backoff(attempt)
			var r *retryable
			if errors.As(last, &r) && r.retryAfter > 0 {
				wait = min(r.retryAfter, MaxRetryAfter)
			}
			select {
			case <-ctx.Done():
				return completion{}, errors.Join(last, context.Cause(ctx))
			case <-time.After(wait):
			}
		}
		if err := j.meter.reserve(bound); err != nil {
			if last != nil {
				return completion{}, fmt.Errorf("%w (after: %v)", err, last)
			}
			return completion{}, err
		}
		c, err := j.post(ctx, body)
		var r *retryable
		switch {
		case err == nil:
			j.meter.settle(bound, c.tokens)
			return c, nil
		case errors.As(err, &r) && r.timedOut:
			j.meter.settle(bound, -1) // a call that timed out may have been billed
		default:
			j.meter.settle(bound, max(c.tokens, 0))
		}
		if ctx.Err() != nil {
			return completion{}, errors.Join(err, context.Cause(ctx))
		}
		if !errors.As(err, &r) {
			return c, err
		}
		last = err
	}
	return completion{}, fmt.Errorf("%w (gave up after %d attempts)", last, j.cfg.Retries+1)
}

// MaxRetryAfter caps how long a server's Retry-After makes the judge wait.
const MaxRetryAfter = 2 * time.Minute

// backoff is the wait before attempt (1-based retry number): Backoff
// doubled each retry, capped at 30 times Backoff, with ±20% jitter.
func (j *Judge) backoff(attempt int) time.Duration {
	d := j.cfg.Backoff << min(attempt-1, 5)
	jitter := 0.8 + 0.4*rand.Float64()
	return time.Duration(float64(d) * jitter)
}
