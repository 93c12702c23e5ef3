package client

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/fusiontune/fusiontune/backend"
)

var _ backend.BatchSearcher = (*Client)(nil)

// Bounds of one POST /search/batch the client sends: a larger batch is
// sent as several, one after the other (the engine's limits are 10,000
// requests and 16 MiB).
const (
	batchRequests = 2000
	batchBytes    = 8 << 20
	// maxAnswerBytes bounds one answer line.
	maxAnswerBytes = 64 << 20
)

// SearchBatch implements backend.BatchSearcher with the embedded engine's
// POST /search/batch: the requests go as one line of JSON each, and each
// answer line is decoded and handed to answer as it arrives. A service
// without the endpoint (404 or 405) gives backend.ErrBatchUnsupported.
// The client's timeout (DefaultTimeout) bounds the wait for each answer,
// not the whole batch.
func (c *Client) SearchBatch(ctx context.Context, reqs []backend.SearchRequest, answer func(backend.BatchAnswer)) error {
	var body bytes.Buffer
	first := 0
	for i, req := range reqs {
		line, err := json.Marshal(req)
		if err != nil {
			return fmt.Errorf("search batch: encode request %d: %w", i, err)
		}
		if i > first && (i-first == batchRequests || body.Len()+len(line) >= batchBytes) {
			if err := c.postBatch(ctx, body.Bytes(), first, i-first, answer); err != nil {
				return err
			}
			body.Reset()
			first = i
		}
		body.Write(line)
		body.WriteByte('\n')
	}
	if len(reqs) == first {
		return nil
	}
	return c.postBatch(ctx, body.Bytes(), first, len(reqs)-first, answer)
}

// errIdle ends a batch whose service stopped answering.
var errIdle = errors.New("no answer")

// postBatch posts n requests (body) whose first is reqs[offset] and reads
// their answers.
func (c *Client) postBatch(ctx context.Context, body []byte, offset, n int, answer func(backend.BatchAnswer)) error {
	idle := c.http.Timeout
	if idle <= 0 {
		idle = DefaultTimeout
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	watchdog := time.AfterFunc(idle, func() { cancel(fmt.Errorf("%w for %s", errIdle, idle)) })
	defer watchdog.Stop()
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+"/search/batch", bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("search batch %s: %w", c.base, err)
	}
	hreq.Header.Set("Content-Type", "application/x-ndjson")
	hc := *c.http
	hc.Timeout = 0 // the watchdog bounds each answer instead
	resp, err := hc.Do(hreq)
	if err != nil {
		return fmt.Errorf("search batch %s: %w", c.base, causeOf(ctx, err))
	}
	defer resp.Body.Close()
	switch resp.StatusCode {
	case http.StatusOK:
	case http.StatusNotFound, http.StatusMethodNotAllowed:
		return fmt.Errorf("search batch %s: %w (%v)", c.base, backend.ErrBatchUnsupported, statusError(resp))
	default:
		return fmt.Errorf("search batch %s: %w", c.base, statusError(resp))
	}
	return c.readAnswers(ctx, resp.Body, func() { watchdog.Reset(idle) }, offset, n, answer)
}

// readAnswers reads the n answers of a batch (request indexes from
// offset) from body, each to answer, calling alive as each arrives.
func (c *Client) readAnswers(ctx context.Context, body io.Reader, alive func(), offset, n int, answer func(backend.BatchAnswer)) error {
	sc := bufio.NewScanner(body)
	sc.Buffer(make([]byte, 0, 64<<10), maxAnswerBytes)
	seen := make([]bool, n)
	got := 0
	for sc.Scan() {
		alive()
		line := sc.Bytes()
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		a, err := decodeAnswer(line)
		if err != nil {
			return fmt.Errorf("search batch %s: decode answer: %w (line %q)", c.base, err, excerpt(line))
		}
		if a.Index < 0 || a.Index >= n || seen[a.Index] {
			return fmt.Errorf("search batch %s: answer for request %d: out of range or answered twice (%d requests)", c.base, a.Index, n)
		}
		seen[a.Index] = true
		got++
		a.Index += offset
		if a.Err != nil {
			a.Err = fmt.Errorf("search batch %s: request %d: %w", c.base, a.Index, a.Err)
		}
		answer(a)
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("search batch %s: read answers: %w", c.base, causeOf(ctx, err))
	}
	if got < n {
		return fmt.Errorf("search batch %s: the answers ended after %d of %d requests", c.base, got, n)
	}
	return nil
}

// causeOf is err, or the watchdog's reason when it cut the request.
func causeOf(ctx context.Context, err error) error {
	if cause := context.Cause(ctx); errors.Is(cause, errIdle) {
		return fmt.Errorf("%w: %v", cause, err)
	}
	return err
}
