package httpbackend

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/backend/fusion"
	"github.com/fusiontune/fusiontune/backend/render"
	"github.com/tidwall/gjson"
)

// Defaults of SearchOptions.
const (
	DefaultMethod       = http.MethodPost
	DefaultContentType  = "application/json"
	DefaultPollInterval = 100 * time.Millisecond
	DefaultCandidateID  = "id"
	DefaultCandidateDoc = "doc_id"
	DefaultScorePath    = "score"
	maxResponseBytes    = 64 << 20
	excerptBytes        = 300
)

// Response says where the parts of a search response are, as gjson paths
// (https://github.com/tidwall/gjson/blob/master/SYNTAX.md).
type Response struct {
	// Hits is the path of the array of hits, from the root ("hits").
	Hits string
	// ID, ChunkID, Score and Text are paths inside one hit. ID is
	// required; ChunkID and Text (an excerpt, shown by failure reports)
	// are optional; without Score a hit scores 1/rank.
	ID, ChunkID, Score, Text string
	// Routing, from the root, is the service's routing label (optional).
	Routing string
	// Candidates maps a retriever name to the path, from the root, of its
	// candidate list with raw scores (optional; fills
	// SearchResponse.Candidates for replay).
	Candidates map[string]string
	// CandidateID, CandidateDocID and CandidateScore are paths inside one
	// candidate (defaults "id", "doc_id" and "score"; a candidate without a
	// doc id belongs to the document named by its id).
	CandidateID, CandidateDocID, CandidateScore string
}

// SearchOptions configure a Searcher.
type SearchOptions struct {
	// URL is a template (values URL-escaped) of the search endpoint.
	URL string
	// Method is the HTTP method (default POST); Body is a template (values
	// JSON-escaped) of the request body, empty for none. Both templates see
	// .query, .k, .request_id, .explain, .fusion (the per-request fusion
	// settings as a JSON object, or null), the trial's parameters under
	// params. on a read-only backend ({{ param "params.fusion.k" 60 }},
	// the default used when the trial does not set it), and .vector (the query's
	// embedding, a JSON array of numbers) when QueryVector is set.
	Method, Body string
	// QueryVector embeds a query for .vector (nil: templates get no
	// .vector and one using it fails). Build it with embed.ForQueries, the
	// same embedder the documents were loaded with.
	QueryVector func(ctx context.Context, query string) ([]float32, error)
	// ContentType of the body (default application/json).
	ContentType string
	// Headers are sent with every request (values already resolved, e.g.
	// from environment variables; never logged).
	Headers map[string]string
	// HealthURL answers 2xx when the service is ready.
	HealthURL string
	Response  Response
	// HTTP is the client (default: one with no overall timeout; each
	// search is bounded by its context).
	HTTP *http.Client
	// PollInterval is the pause between health probes (default 100 ms).
	PollInterval time.Duration
}

// Searcher queries a service over HTTP through a request template and
// response paths. It is safe for concurrent use.
type Searcher struct {
	o    SearchOptions
	url  *render.Template
	body *render.Template
}

var _ backend.Searcher = (*Searcher)(nil)

// NewSearcher checks o and parses its templates.
func NewSearcher(o SearchOptions) (*Searcher, error) {
	if o.URL == "" {
		return nil, errors.New("search: url is required")
	}
	if o.HealthURL == "" {
		return nil, errors.New("search: health url is required")
	}
	if o.Response.Hits == "" || o.Response.ID == "" {
		return nil, errors.New("search: the response paths of the hits and their ids are required")
	}
	if o.Method == "" {
		o.Method = DefaultMethod
	}
	if o.ContentType == "" {
		o.ContentType = DefaultContentType
	}
	if o.HTTP == nil {
		o.HTTP = &http.Client{}
	}
	if o.PollInterval <= 0 {
		o.PollInterval = DefaultPollInterval
	}
	s := &Searcher{o: o}
	var err error
	if s.url, err = render.Parse("search url", o.URL, render.URL); err != nil {
		return nil, err
	}
	if o.Body != "" {
		if s.body, err = render.Parse("search body", o.Body, render.JSON); err != nil {
			return nil, err
		}
	}
	if err := s.sample(); err != nil {
		return nil, err
	}
	return s, nil
}

// SampleQuery is the query the request templates are rendered with once
// when a Searcher is made, so that a template that cannot make a request
// fails before any trial rather than on every query.
const SampleQuery = `sample "query" with\ escapes`

// sample renders the URL and body templates for SampleQuery (a sample
// vector when QueryVector is set): the URL must be an http(s) URL with a
// host, the body JSON (render.JSON checks it). A template reading a
// trial's parameters (.params, on a read-only backend) without a default
// cannot be rendered before a trial gives them: it is not refused here.
func (s *Searcher) sample() error {
	data := map[string]any{"query": SampleQuery, "k": 10, "request_id": "sample", "explain": true, "fusion": nil}
	if s.o.QueryVector != nil {
		data["vector"] = []float32{0.5, -0.5}
	}
	u, err := s.url.Execute(data)
	if err != nil && !needsParams(err) {
		return fmt.Errorf("search.url: rendered for a sample query: %w", err)
	}
	if p, perr := url.Parse(string(u)); err == nil && (perr != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "") {
		return fmt.Errorf("search.url: rendered for a sample query, %q is not an http:// or https:// URL", u)
	}
	if s.body != nil {
		if _, err := s.body.Execute(data); err != nil && !needsParams(err) {
			return fmt.Errorf("search.body: rendered for a sample query: %w", err)
		}
	}
	return nil
}

// needsParams reports whether a template failed only for want of a
// trial's parameters.
func needsParams(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, `map has no entry for key "params"`) || strings.Contains(msg, `parameter "params.`)
}

// Ready polls the health URL until it answers 2xx or ctx ends; the error
// then carries the last probe's reason.
func (s *Searcher) Ready(ctx context.Context) error {
	t := time.NewTicker(s.o.PollInterval)
	defer t.Stop()
	var last error
	for {
		err := s.health(ctx)
		if err == nil {
			return nil
		}
		if ctx.Err() == nil || last == nil {
			last = err
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("not ready: %w (last probe: %v)", ctx.Err(), last)
		case <-t.C:
		}
	}
}

func (s *Searcher) health(ctx context.Context) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.o.HealthURL, nil)
	if err != nil {
		return fmt.Errorf("health %s: %w", s.o.HealthURL, err)
	}
	s.headers(req)
	resp, err := s.o.HTTP.Do(req)
	if err != nil {
		return fmt.Errorf("health %s: %w", s.o.HealthURL, err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("health %s: status %d: %s", s.o.HealthURL, resp.StatusCode, excerpt(data))
	}
	return nil
}

func (s *Searcher) headers(req *http.Request) {
	for k, v := range s.o.Headers {
		req.Header.Set(k, v)
	}
}

// Search fills the request templates with req, sends the request and maps
// the JSON response.
func (s *Searcher) Search(ctx context.Context, req backend.SearchRequest) (backend.SearchResponse, error) {
	return s.SearchParams(ctx, req, nil)
}

// SearchParams is Search with a trial's parameters in the templates'
// .params: how a read-only backend sweeps query-time settings without
// touching the service's config.
func (s *Searcher) SearchParams(ctx context.Context, req backend.SearchRequest, params map[string]any) (backend.SearchResponse, error) {
	var out backend.SearchResponse
	data := map[string]any{"query": req.Query, "k": req.K, "request_id": req.RequestID, "explain": req.Explain, "fusion": req.Fusion}
	for name, v := range params {
		data["params."+name] = v
	}
	if s.o.QueryVector != nil {
		v, err := s.o.QueryVector(ctx, req.Query)
		if err != nil {
			return out, fmt.Errorf("search: embed the query: %w", err)
		}
		data["vector"] = v
	}
	u, err := s.url.Execute(data)
	if err != nil {
		return out, fmt.Errorf("search: %w", err)
	}
	var body io.Reader
	if s.body != nil {
		b, err := s.body.Execute(data)
		if err != nil {
			return out, fmt.Errorf("search: %w", err)
		}
		body = bytes.NewReader(b)
	}
	hreq, err := http.NewRequestWithContext(ctx, s.o.Method, string(u), body)
	if err != nil {
		return out, fmt.Errorf("search: %w", err)
	}
	if body != nil {
		hreq.Header.Set("Content-Type", s.o.ContentType)
	}
	if req.RequestID != "" {
		hreq.Header.Set("X-Request-ID", req.RequestID)
	}
	s.headers(hreq)
	resp, err := s.o.HTTP.Do(hreq)
	if err != nil {
		return out, fmt.Errorf("search: %w", err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes))
	if err != nil {
		return out, fmt.Errorf("search: read response: %w", err)
	}
	if resp.StatusCode/100 != 2 {
		err := fmt.Errorf("search: status %d: %s", resp.StatusCode, excerpt(raw))
		if resp.StatusCode/100 == 4 && resp.StatusCode != http.StatusRequestTimeout && resp.StatusCode != http.StatusTooManyRequests {
			err = backend.SetupError(err) // the request as configured is refused
		}
		return out, err
	}
	out, err = s.o.Response.Map(raw)
	if err != nil {
		return out, backend.SetupError(fmt.Errorf("search: %w", err))
	}
	return out, nil
}

// Map reads a search response out of a JSON body.
func (r Response) Map(body []byte) (backend.SearchResponse, error) {
	var out backend.SearchResponse
	if r.CandidateID == "" {
		r.CandidateID = DefaultCandidateID
	}
	if r.CandidateDocID == "" {
		r.CandidateDocID = DefaultCandidateDoc
	}
	if r.CandidateScore == "" {
		r.CandidateScore = DefaultScorePath
	}
	if !gjson.ValidBytes(body) {
		return out, fmt.Errorf("response is not JSON: %s", excerpt(body))
	}
	root := gjson.ParseBytes(body)
	hits := root.Get(r.Hits)
	if !hits.Exists() {
		return out, fmt.Errorf("response has nothing at path %q (search.hits): %s", r.Hits, excerpt(body))
	}
	if !hits.IsArray() && hits.Type != gjson.Null {
		return out, fmt.Errorf("response path %q (search.hits) is not an array", r.Hits)
	}
	out.Hits = []backend.Hit{}
	var ferr error
	hits.ForEach(func(_, h gjson.Result) bool {
		i := len(out.Hits)
		id, err := str(h, r.ID, fmt.Sprintf("hits[%d]", i))
		if err != nil {
			ferr = err
			return false
		}
		hit := backend.Hit{DocID: id, Score: 1 / float64(i+1)}
		if r.ChunkID != "" {
			if c := h.Get(r.ChunkID); c.Exists() {
				hit.ChunkID = c.String()
			}
		}
		if r.Text != "" {
			if t := h.Get(r.Text); t.Exists() && t.Type != gjson.Null {
				hit.Text = t.String()
			}
		}
		if r.Score != "" {
			if hit.Score, err = num(h, r.Score, fmt.Sprintf("hits[%d]", i)); err != nil {
				ferr = err
				return false
			}
		}
		out.Hits = append(out.Hits, hit)
		return true
	})
	if ferr != nil {
		return out, ferr
	}
	if r.Routing != "" {
		if v := root.Get(r.Routing); v.Exists() && v.Type != gjson.Null {
			out.Routing = v.String()
		}
	}
	for name, path := range r.Candidates {
		list := root.Get(path)
		if !list.Exists() || list.Type == gjson.Null {
			continue // the service sent no list (e.g. explain was not asked for)
		}
		if !list.IsArray() {
			return out, fmt.Errorf("response path %q (search.candidates.%s) is not an array", path, name)
		}
		cands := []fusion.Candidate{}
		list.ForEach(func(_, c gjson.Result) bool {
			where := fmt.Sprintf("candidates %s[%d]", name, len(cands))
			id, err := str(c, r.CandidateID, where)
			if err == nil {
				var score float64
				score, err = num(c, r.CandidateScore, where)
				doc := id
				if d := c.Get(r.CandidateDocID); d.Exists() && d.Type != gjson.Null {
					doc = d.String()
				}
				cands = append(cands, fusion.Candidate{ID: id, DocID: doc, Score: score, Rank: len(cands) + 1})
			}
			ferr = err
			return err == nil
		})
		if ferr != nil {
			return out, ferr
		}
		if out.Candidates == nil {
			out.Candidates = map[string][]fusion.Candidate{}
		}
		out.Candidates[name] = cands
	}
	return out, nil
}

func str(v gjson.Result, path, where string) (string, error) {
	x := v.Get(path)
	if !x.Exists() || (x.Type != gjson.String && x.Type != gjson.Number) || x.String() == "" {
		return "", fmt.Errorf("%s: no string or number at path %q", where, path)
	}
	return x.String(), nil
}

// num reads a score: a JSON number, or a string holding a decimal number
// (engines such as Weaviate send "0.016397849"). A string that is not a
// finite number is refused.
func num(v gjson.Result, path, where string) (float64, error) {
	x := v.Get(path)
	switch x.Type {
	case gjson.Number:
		return x.Float(), nil
	case gjson.String:
		f, err := strconv.ParseFloat(strings.TrimSpace(x.Str), 64)
		if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			return 0, fmt.Errorf("%s: the string %q at path %q is not a number", where, excerpt([]byte(x.Str)), path)
		}
		return f, nil
	}
	return 0, fmt.Errorf("%s: no number at path %q", where, path)
}

func excerpt(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) > excerptBytes {
		s = s[:excerptBytes] + "…"
	}
	return s
}
