package engine_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/backend/client"
	"github.com/fusiontune/fusiontune/backend/corpus"
	"github.com/fusiontune/fusiontune/backend/engine"
	"github.com/fusiontune/fusiontune/backend/engine/enginetest"
	"github.com/fusiontune/fusiontune/backend/fusion"
)

// serveBatch serves c on 127.0.0.1 for the test.
func serveBatch(t *testing.T, c engine.Config) *enginetest.Served {
	t.Helper()
	s, err := enginetest.Serve(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// batchRequests are the kinds of requests the tuner sends, for each
// query: the configured fusion, explain at depth (the collection), a
// weighted override and an RRF override with two variants (a
// verification pass), and timings.
func batchRequests(queries []string, depth int) []backend.SearchRequest {
	var out []backend.SearchRequest
	for _, q := range queries {
		out = append(out,
			backend.SearchRequest{Query: q},
			backend.SearchRequest{Query: q, K: 1, Explain: true, Fusion: &fusion.Params{Depth: depth}},
			backend.SearchRequest{Query: q, K: 100, Fusion: &fusion.Params{Method: fusion.Linear, Normalization: fusion.MinMax,
				Weights: map[string]float64{engine.BM25: 0.3, engine.Dense: 0.7}}},
			backend.SearchRequest{Query: q, K: 100, Fusion: &fusion.Params{Method: fusion.RRF, K: 10},
				Variants: []fusion.Params{{Method: fusion.RRF, K: 20, Weights: map[string]float64{engine.BM25: 1, engine.Dense: 0}},
					{Method: fusion.RRF, K: 10, Weights: map[string]float64{engine.BM25: 0.8, engine.Dense: 0.2}}}},
			backend.SearchRequest{Query: q, K: 5, Explain: true, Timings: true},
		)
	}
	return out
}

// withoutText is resp as a batch answers it: hits without text.
func withoutText(resp backend.SearchResponse) backend.SearchResponse {
	strip := func(hits []backend.Hit) {
		for i := range hits {
			hits[i].Text = ""
		}
	}
	strip(resp.Hits)
	for _, v := range resp.Variants {
		strip(v.Hits)
	}
	return resp
}

// TestSearchBatchEqualsSearch checks that every answer of POST
// /search/batch is the response POST /search gives for the same request
// (hits without their text; the measured timings aside): the same
// scores, order, chunks, routing, candidate lists and variants, on the
// fixture (whole documents and chunked, passage mode) and on SciFact with
// BM25 + lsa-64 when the shared data is there.
func TestSearchBatchEqualsSearch(t *testing.T) {
	tiny := []string{"telescope mirror distant galaxies", "why does bread rise with yeast", "garbage collector heap in Go",
		"keeping soil moist in the garden", "quantum chromodynamics lattice gauge theory", "zzzz unknownword"}
	cases := []struct {
		name    string
		config  func(t *testing.T) engine.Config
		queries func(t *testing.T) []string
	}{
		{"tiny documents", func(t *testing.T) engine.Config { return tinyConfig(t, nil) }, func(*testing.T) []string { return tiny }},
		{"tiny chunks", func(t *testing.T) engine.Config {
			return tinyConfig(t, func(c *engine.Config) { c.Chunk = corpus.ChunkConfig{Size: 8, Overlap: 2} })
		}, func(*testing.T) []string { return tiny }},
		{"tiny passages", func(t *testing.T) engine.Config {
			return tinyConfig(t, func(c *engine.Config) { c.Chunk = corpus.ChunkConfig{Size: 8, Overlap: 2}; c.Passage = true })
		}, func(*testing.T) []string { return tiny }},
		{"scifact bm25 + lsa-64", func(t *testing.T) engine.Config {
			c := scifactConfig(t, t.TempDir())
			c.Retrievers = []string{engine.BM25, engine.Dense}
			c.Dense.Model = "lsa-64"
			return c
		}, func(t *testing.T) []string {
			var out []string
			for _, q := range readQueries(t, filepath.Join(sharedData(t, "scifact"), "queries.jsonl"))[:60] {
				out = append(out, q.Text)
			}
			return out
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			queries := tc.queries(t)
			s := serveBatch(t, tc.config(t))
			reqs := batchRequests(queries, 30)
			got := make([]*backend.BatchAnswer, len(reqs))
			err := s.Client.SearchBatch(context.Background(), reqs, func(a backend.BatchAnswer) {
				if got[a.Index] != nil {
					t.Errorf("request %d answered twice", a.Index)
				}
				got[a.Index] = &a
			})
			if err != nil {
				t.Fatal(err)
			}
			hits, candidates := 0, 0
			for i, req := range reqs {
				want, err := s.Client.Search(context.Background(), req)
				if err != nil {
					t.Fatalf("request %d: %v", i, err)
				}
				a := got[i]
				if a == nil || a.Err != nil {
					t.Fatalf("request %d (%+v): answer %+v", i, req, a)
				}
				resp := a.Response
				if req.Timings != (resp.Timings != nil) {
					t.Errorf("request %d: timings %v, asked %v", i, resp.Timings, req.Timings)
				}
				resp.Timings, want.Timings = nil, nil
				if want = withoutText(want); !reflect.DeepEqual(resp, want) {
					t.Errorf("request %d (%q, %+v): batch answer differs from /search:\n got %+v\nwant %+v", i, req.Query, req.Fusion, resp, want)
				}
				hits += len(resp.Hits)
				for _, l := range resp.Candidates {
					candidates += len(l)
				}
			}
			if hits == 0 || candidates == 0 {
				t.Fatalf("nothing compared: %d hits, %d candidates", hits, candidates)
			}
		})
	}
}

// TestSearchBatchRefusesBadInput checks that a bad batch is refused
// whole, before any search, with /search's status and a message naming
// the line.
func TestSearchBatchRefusesBadInput(t *testing.T) {
	s := serveBatch(t, tinyConfig(t, nil))
	base := s.Client.BaseURL()
	many := strings.Repeat(`{"query":"q"}`+"\n", engine.MaxBatchRequests+1)
	cases := []struct {
		name   string
		method string
		body   string
		status int
		want   []string
	}{
		{"empty body", http.MethodPost, "", 400, []string{"batch: no request"}},
		{"blank lines only", http.MethodPost, "\n\n  \n", 400, []string{"batch: no request"}},
		{"malformed line", http.MethodPost, `{"query":"a"}` + "\n" + `{"query":` + "\n", 400, []string{"line 2: malformed JSON body"}},
		{"unknown field", http.MethodPost, `{"query":"a","bogus":1}`, 400, []string{"line 1:", `unknown field`, "bogus"}},
		{"two values on a line", http.MethodPost, `{"query":"a"} {"query":"b"}`, 400, []string{"line 1:", "more than one value"}},
		{"every bad line listed", http.MethodPost, `{"query":""}` + "\n\n" + `{"query":"a","k":-1}` + "\n" + `{"query":"a","fusion":{"k":-5}}`, 400,
			[]string{"line 1: query: must not be empty", "line 3: k: must be in", "line 4: fusion.k"}},
		{"variant depth", http.MethodPost, `{"query":"a","fusion":{"depth":20},"variants":[{"depth":30}]}`, 400, []string{"line 1: variants[0]", "must equal the request's depth 20"}},
		{"query too long", http.MethodPost, `{"query":"` + strings.Repeat("x", engine.MaxQueryBytes+1) + `"}`, 400, []string{"line 1: query: at most"}},
		{"too many requests", http.MethodPost, many, 400, []string{"at most 10000 requests"}},
		{"body too large", http.MethodPost, strings.Repeat(" ", engine.MaxBatchBodyBytes+1), 413, []string{"batch body over"}},
		{"wrong method", http.MethodGet, "", 405, []string{"method not allowed"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req, err := http.NewRequest(tc.method, base+"/search/batch", strings.NewReader(tc.body))
			if err != nil {
				t.Fatal(err)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tc.status {
				t.Fatalf("status %d, want %d (%s)", resp.StatusCode, tc.status, body)
			}
			for _, w := range tc.want {
				if !bytes.Contains(body, []byte(w)) {
					t.Errorf("body %s: want %q in it", body, w)
				}
			}
		})
	}
}

// TestSearchBatchFailedRequestGoesOn checks that a request failing while
// it is searched (its query's embedding refused by the embedding server:
// 500 on /search) is answered with /search's status and error, and the
// others normally.
func TestSearchBatchFailedRequestGoesOn(t *testing.T) {
	emb := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Input []string `json:"input"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		type item struct {
			Embedding []float32 `json:"embedding"`
			Index     int       `json:"index"`
		}
		var out struct {
			Data []item `json:"data"`
		}
		for i, text := range req.Input {
			if strings.Contains(text, "refuse me") {
				http.Error(w, "this input is refused", http.StatusBadRequest)
				return
			}
			v := make([]float32, 8)
			for _, c := range text {
				v[int(c)%8]++
			}
			out.Data = append(out.Data, item{Embedding: v, Index: i})
		}
		json.NewEncoder(w).Encode(out)
	}))
	t.Cleanup(emb.Close)
	s := serveBatch(t, tinyConfig(t, func(c *engine.Config) {
		c.Dense = engine.DenseConfig{Model: "openai:tiny", BaseURL: emb.URL, MaxRetries: intp(0)}
	}))
	reqs := []backend.SearchRequest{{Query: "telescope mirror"}, {Query: "telescope refuse me"}, {Query: "bread yeast"}}
	_, searchErr := s.Client.Search(context.Background(), reqs[1])
	if searchErr == nil {
		t.Fatal("/search answered the refused query")
	}
	var got [3]*backend.BatchAnswer
	if err := s.Client.SearchBatch(context.Background(), reqs, func(a backend.BatchAnswer) { got[a.Index] = &a }); err != nil {
		t.Fatal(err)
	}
	for i, a := range got {
		if a == nil {
			t.Fatalf("request %d not answered", i)
		}
		if (a.Err != nil) != (i == 1) {
			t.Errorf("request %d: error %v", i, a.Err)
		}
	}
	want := strings.SplitN(searchErr.Error(), "unexpected HTTP status", 2)[1]
	if !errors.Is(got[1].Err, client.ErrStatus) || !strings.HasSuffix(got[1].Err.Error(), want) {
		t.Errorf("error %v: want /search's status and message %q", got[1].Err, want)
	}
	for _, i := range []int{0, 2} {
		want, err := s.Client.Search(context.Background(), reqs[i])
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got[i].Response, withoutText(want)) {
			t.Errorf("request %d: %+v, want %+v", i, got[i].Response, want)
		}
	}
}

// FuzzSearchBatch feeds arbitrary bodies to POST /search/batch: the
// answer is 400 with a JSON body, or 200 with one JSON answer line per
// request, each request answered once and none with a 500.
func FuzzSearchBatch(f *testing.F) {
	e := build(f, tinyConfig(f, nil))
	srv := engine.NewServer(e, engine.ServerOptions{})
	for _, s := range []string{
		`{"query": "bread", "k": 3}` + "\n" + `{"query": "telescope", "explain": true, "fusion": {"depth": 5}, "variants": [{"k": 3}]}`,
		`{"query": "bread", "explain": true, "fusion": {"method": "linear", "weights": {"dense": 0.5}, "normalization": "z_score", "depth": 5}}`,
		"\n\n{\"query\": \"x\"}\n\n", `{"query": 3}`, `{"query": "x", "k": -1}`, `[]`, `{"query": "x"}{}`, ``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		req, err := http.NewRequest(http.MethodPost, "/search/batch", bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		rec := newRecorder()
		srv.ServeHTTP(rec, req)
		out := rec.body.String()
		if rec.status == 400 {
			if !json.Valid([]byte(out)) {
				t.Fatalf("400 body is not JSON: %q", out)
			}
			return
		}
		if rec.status != 200 {
			t.Fatalf("status %d for %q: %s", rec.status, body, out)
		}
		n := 0
		for _, line := range bytes.Split(body, []byte("\n")) {
			if len(bytes.TrimSpace(line)) > 0 {
				n++
			}
		}
		seen := map[int]bool{}
		for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
			var a struct {
				I      *int `json:"i"`
				Status int  `json:"status"`
			}
			if err := json.Unmarshal([]byte(line), &a); err != nil || a.I == nil {
				t.Fatalf("answer line %q: %v", line, err)
			}
			if seen[*a.I] || *a.I < 0 || *a.I >= n || a.Status == 500 {
				t.Fatalf("answer line %q: repeated, out of range (%d requests) or 500", line, n)
			}
			seen[*a.I] = true
		}
		if len(seen) != n {
			t.Fatalf("%d answers for %d requests: %q", len(seen), n, out)
		}
	})
}

// TestSearchIDsIsSearchWithoutText checks that SearchIDs answers what
// Search answers with only the hits' text left out, and that a search
// with text after one without (their fusion scratch is pooled) still cuts
// every hit's excerpt: whole documents, chunks and passages.
func TestSearchIDsIsSearchWithoutText(t *testing.T) {
	edits := map[string]func(*engine.Config){
		"documents": nil,
		"chunks":    func(c *engine.Config) { c.Chunk = corpus.ChunkConfig{Size: 8, Overlap: 2} },
		"passages":  func(c *engine.Config) { c.Chunk = corpus.ChunkConfig{Size: 8, Overlap: 2}; c.Passage = true },
	}
	queries := []string{"telescope mirror distant galaxies", "why does bread rise with yeast", "garbage collector heap in Go"}
	for name, edit := range edits {
		t.Run(name, func(t *testing.T) {
			e := build(t, tinyConfig(t, edit))
			for _, req := range batchRequests(queries, 30) {
				ids, err := e.SearchIDs(context.Background(), req)
				if err != nil {
					t.Fatal(err)
				}
				full, err := e.Search(context.Background(), req)
				if err != nil {
					t.Fatal(err)
				}
				for _, h := range full.Hits {
					if h.Text == "" {
						t.Errorf("%q: Search after SearchIDs: hit %s has no text", req.Query, h.ChunkID)
					}
				}
				ids.Timings, full.Timings = nil, nil
				if want := withoutText(full); !reflect.DeepEqual(ids, want) {
					t.Errorf("%q (%+v): SearchIDs\n got %+v\nwant %+v", req.Query, req.Fusion, ids, want)
				}
			}
		})
	}
}
