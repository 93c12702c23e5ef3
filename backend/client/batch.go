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
	"github.com/fusiontune/fusiontune/backend/fusion"
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

// decodeAnswer decodes one answer line of /search/batch.
func decodeAnswer(line []byte) (backend.BatchAnswer, error) {
	d := scanner{data: line}
	var a backend.BatchAnswer
	status, msg := 0, ""
	index := -1
	d.object(func(key string, seen *uint32) {
		switch key {
		case "i":
			d.once(seen, 1)
			index = d.int()
		case "ms":
			d.once(seen, 2)
			a.Elapsed = time.Duration(d.float() * float64(time.Millisecond))
		case "hits":
			d.once(seen, 4)
			a.Response.Hits = d.hitTuples()
		case "routing":
			d.once(seen, 8)
			a.Response.Routing = d.str()
		case "candidates":
			d.once(seen, 16)
			a.Response.Candidates = d.candidateTuples()
		case "variants":
			d.once(seen, 32)
			a.Response.Variants = d.variantTuples()
		case "timings":
			d.once(seen, 64)
			a.Response.Timings = d.timings()
		case "status":
			d.once(seen, 128)
			status = d.int()
		case "error":
			d.once(seen, 256)
			msg = d.str()
		default:
			d.fail()
		}
	})
	if d.space(); d.err != nil || d.pos != len(d.data) {
		return a, errors.New("not an answer of /search/batch")
	}
	if index < 0 {
		return a, errors.New(`no "i"`)
	}
	a.Index = index
	if status != 0 || msg != "" {
		a.Response = backend.SearchResponse{}
		a.Err = fmt.Errorf("%w %d %s: %s", ErrStatus, status, http.StatusText(status), msg)
	}
	return a, nil
}

// hitTuples reads hits written as [doc_id, score] or [doc_id, chunk_id,
// score] (null: nil).
func (d *scanner) hitTuples() []backend.Hit {
	if d.null() {
		return nil
	}
	out := []backend.Hit{}
	d.array(func() {
		var h backend.Hit
		h.DocID, h.ChunkID, h.Score = d.tupleHead()
		d.expect(']')
		out = append(out, h)
	})
	return out
}

// tupleHead reads a hit's or a candidate's tuple up to its score, not
// closed (what the engine's appendTupleHead writes): [first, score or
// [first, second, score; second defaults to first.
func (d *scanner) tupleHead() (first, second string, score float64) {
	d.expect('[')
	first = d.str()
	d.expect(',')
	second = first
	if d.peek() == '"' {
		second = d.str()
		d.expect(',')
	}
	return first, second, d.float()
}

// candidateTuples reads candidate lists written as [id, score], [id,
// doc_id, score] or [id, doc_id, score, rank] (the rank defaulting to the
// 1-based position, the document to the id).
func (d *scanner) candidateTuples() map[string][]fusion.Candidate {
	return d.candidateLists(true, func(pos int) fusion.Candidate {
		c := fusion.Candidate{Rank: pos}
		c.ID, c.DocID, c.Score = d.tupleHead()
		if d.peek() == ',' {
			d.pos++
			c.Rank = d.int()
		}
		d.expect(']')
		return c
	})
}

func (d *scanner) variantTuples() []backend.Variant {
	out := []backend.Variant{}
	d.array(func() {
		var v backend.Variant
		d.object(func(key string, seen *uint32) {
			switch key {
			case "hits":
				d.once(seen, 1)
				v.Hits = d.hitTuples()
			case "routing":
				d.once(seen, 2)
				v.Routing = d.str()
			default:
				d.fail()
			}
		})
		out = append(out, v)
	})
	return out
}

func (d *scanner) timings() *backend.StageTimings {
	var t backend.StageTimings
	d.object(func(key string, seen *uint32) {
		switch key {
		case "lexical_ms":
			d.once(seen, 1)
			t.LexicalMS = d.float()
		case "dense_ms":
			d.once(seen, 2)
			t.DenseMS = d.float()
		case "fusion_ms":
			d.once(seen, 4)
			t.FusionMS = d.float()
		default:
			d.fail()
		}
	})
	return &t
}
