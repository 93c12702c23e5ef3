package httpbackend_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/backend/fusion"
	"github.com/fusiontune/fusiontune/backend/httpbackend"
)

func TestResponseMap(t *testing.T) {
	r := httpbackend.Response{
		Hits: "data.items", ID: "ref.id", Score: "relevance", Routing: "meta.route",
		Candidates:  map[string]string{"lex": "debug.lexical", "vec": "debug.vector"},
		CandidateID: "id", CandidateScore: "raw",
	}
	tests := []struct {
		name, body string
		want       backend.SearchResponse
		wantErr    string
	}{
		{
			name: "full",
			body: `{"data": {"items": [{"ref": {"id": "d1"}, "relevance": 2.5}, {"ref": {"id": 7}, "relevance": 1}]}, "meta": {"route": "search"},
				"debug": {"lexical": [{"id": "d1#0", "doc_id": "d1", "raw": 11.2}, {"id": "d7", "raw": 3}], "vector": null}}`,
			want: backend.SearchResponse{
				Hits:       []backend.Hit{{DocID: "d1", Score: 2.5}, {DocID: "7", Score: 1}},
				Routing:    "search",
				Candidates: map[string][]fusion.Candidate{"lex": {{ID: "d1#0", DocID: "d1", Score: 11.2, Rank: 1}, {ID: "d7", DocID: "d7", Score: 3, Rank: 2}}},
			},
		},
		{name: "no results", body: `{"data": {"items": []}, "meta": {"route": "no_results"}}`, want: backend.SearchResponse{Hits: []backend.Hit{}, Routing: "no_results"}},
		{name: "not json", body: `<html>oops</html>`, wantErr: "not JSON"},
		{name: "no hits path", body: `{"items": []}`, wantErr: `nothing at path "data.items"`},
		{name: "hits not array", body: `{"data": {"items": {"a": 1}}}`, wantErr: "is not an array"},
		{name: "missing id", body: `{"data": {"items": [{"relevance": 1}]}}`, wantErr: `hits[0]: no string or number at path "ref.id"`},
		{
			name: "scores as numeric strings",
			body: `{"data": {"items": [{"ref": {"id": "a"}, "relevance": "0.016397849"}, {"ref": {"id": "b"}, "relevance": " 1e-3 "}]},
				"debug": {"lexical": [{"id": "a", "raw": "-2.5"}]}}`,
			want: backend.SearchResponse{
				Hits:       []backend.Hit{{DocID: "a", Score: 0.016397849}, {DocID: "b", Score: 0.001}},
				Candidates: map[string][]fusion.Candidate{"lex": {{ID: "a", DocID: "a", Score: -2.5, Rank: 1}}},
			},
		},
		{name: "score not number", body: `{"data": {"items": [{"ref": {"id": "a"}, "relevance": "high"}]}}`, wantErr: `hits[0]: the string "high" at path "relevance" is not a number`},
		{name: "score empty string", body: `{"data": {"items": [{"ref": {"id": "a"}, "relevance": ""}]}}`, wantErr: `hits[0]: the string "" at path "relevance" is not a number`},
		{name: "score NaN string", body: `{"data": {"items": [{"ref": {"id": "a"}, "relevance": "NaN"}]}}`, wantErr: `is not a number`},
		{name: "score Inf string", body: `{"data": {"items": [{"ref": {"id": "a"}, "relevance": "+Inf"}]}}`, wantErr: `is not a number`},
		{name: "score object", body: `{"data": {"items": [{"ref": {"id": "a"}, "relevance": {"v": 1}}]}}`, wantErr: `hits[0]: no number at path "relevance"`},
		{name: "candidate score not number", body: `{"data": {"items": []}, "debug": {"lexical": [{"id": "a", "raw": "0.5x"}]}}`, wantErr: `candidates lex[0]: the string "0.5x" at path "raw" is not a number`},
		{name: "bad candidate", body: `{"data": {"items": []}, "debug": {"lexical": [{"id": "a"}]}}`, wantErr: `candidates lex[0]: no number at path "raw"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := r.Map([]byte(tc.body))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got  %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

// TestRequest checks what reaches the service: the rendered body with a
// hostile query still one JSON string, the X-Request-ID header, the
// configured headers, and non-2xx statuses as errors.
func TestRequest(t *testing.T) {
	var got *http.Request
	var body string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got, body = r, string(b)
		if strings.Contains(body, "fail") {
			http.Error(w, `{"error": "bad query"}`, http.StatusBadRequest)
			return
		}
		w.Write([]byte(`{"hits": [{"id": "a", "score": 1}]}`))
	}))
	defer srv.Close()
	s, err := httpbackend.NewSearcher(httpbackend.SearchOptions{
		URL: srv.URL + "/search", Body: `{"q": {{ .query }}, "size": {{ .k }}}`, HealthURL: srv.URL,
		Headers:  map[string]string{"Authorization": "Bearer s3cret"},
		Response: httpbackend.Response{Hits: "hits", ID: "id", Score: "score"},
	})
	if err != nil {
		t.Fatal(err)
	}
	q := "\"}, \"size\": 1000, \"x\": {\"a"
	resp, err := s.Search(context.Background(), backend.SearchRequest{Query: q, K: 5, RequestID: "run/001/q1"})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Hits) != 1 || got.Header.Get("X-Request-ID") != "run/001/q1" || got.Header.Get("Authorization") != "Bearer s3cret" ||
		got.Header.Get("Content-Type") != "application/json" {
		t.Errorf("hits %v, headers %v", resp.Hits, got.Header)
	}
	if want := `{"q": "\"}, \"size\": 1000, \"x\": {\"a", "size": 5}`; body != want {
		t.Errorf("body %s, want %s", body, want)
	}
	if _, err := s.Search(context.Background(), backend.SearchRequest{Query: "fail"}); err == nil || !strings.Contains(err.Error(), "status 400") {
		t.Errorf("error status: %v", err)
	}
}

// TestRequestVector checks that .vector is the query's embedding from
// QueryVector, rendered as a JSON array, and that an embedding failure
// fails the search without sending a request.
func TestRequestVector(t *testing.T) {
	var bodies []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		bodies = append(bodies, string(b))
		w.Write([]byte(`{"hits": [{"id": "a", "score": "0.5"}]}`))
	}))
	defer srv.Close()
	var asked []string
	s, err := httpbackend.NewSearcher(httpbackend.SearchOptions{
		URL: srv.URL + "/search", Body: `{"q": {{ .query }}, "vector": {{ .vector }}}`, HealthURL: srv.URL,
		Response: httpbackend.Response{Hits: "hits", ID: "id", Score: "score"},
		QueryVector: func(_ context.Context, q string) ([]float32, error) {
			asked = append(asked, q)
			if q == "bad" {
				return nil, errors.New("embedding server down")
			}
			return []float32{0.25, -1, 3e-5}, nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := s.Search(context.Background(), backend.SearchRequest{Query: "mirror", K: 5})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"q": "mirror", "vector": [0.25,-1,0.00003]}`; len(bodies) != 1 || bodies[0] != want {
		t.Errorf("bodies %q, want [%s]", bodies, want)
	}
	if len(resp.Hits) != 1 || resp.Hits[0].Score != 0.5 {
		t.Errorf("hits %+v", resp.Hits)
	}
	_, err = s.Search(context.Background(), backend.SearchRequest{Query: "bad"})
	if err == nil || !strings.Contains(err.Error(), "embed the query: embedding server down") {
		t.Errorf("error %v, want the embedding failure", err)
	}
	if len(bodies) != 1 || !reflect.DeepEqual(asked, []string{"mirror", "bad"}) {
		t.Errorf("requests %d (want 1), embedded %q", len(bodies), asked)
	}
}

// TestNewSearcherRendersASample: the request templates are rendered once
// for a sample query when the searcher is made, so a template that cannot
// make a request is refused before any search, naming the setting; one
// that reads a trial's parameters is left for the trials.
func TestNewSearcherRendersASample(t *testing.T) {
	tests := []struct {
		name, url, body string
		wantErr         string
	}{
		{"valid", "http://127.0.0.1:9/search", `{"query": {{ .query }}, "k": {{ .k }}}`, ""},
		{"query in the URL", "http://127.0.0.1:9/search?q={{ .query }}&k={{ .k }}", "", ""},
		{"trial parameters", "http://127.0.0.1:9/search", `{"query": {{ .query }}, "w": {{ .params.fusion.k }}}`, ""},
		{"body not JSON", "http://127.0.0.1:9/search", `{"query": {{ .query }}`, "search.body: rendered for a sample query: search body: the rendered json does not parse"},
		{"body as a form", "http://127.0.0.1:9/search", `query={{ .query }}`, "search.body: rendered for a sample query"},
		{"misspelt key", "http://127.0.0.1:9/search", `{"query": {{ .qeury }}}`, `map has no entry for key "qeury"`},
		{"vector without an embedder", "http://127.0.0.1:9/search", `{"v": {{ .vector }}}`, "search.body: rendered for a sample query"},
		{"URL template not a URL", "{{ .query }}", "", "search.url: rendered for a sample query"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := httpbackend.NewSearcher(httpbackend.SearchOptions{URL: tt.url, Body: tt.body, HealthURL: "http://127.0.0.1:9/healthz",
				Response: httpbackend.Response{Hits: "hits", ID: "id"}})
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Errorf("error %v, want %q", err, tt.wantErr)
			}
		})
	}
}

// TestSearchSetupErrors: a request the service refuses as malformed and
// an answer that does not fit the mapping are marked backend.ErrSearchSetup
// (the pre-flight reports them); a busy or failing service is not.
func TestSearchSetupErrors(t *testing.T) {
	tests := []struct {
		status int
		body   string
		setup  bool
	}{
		{http.StatusOK, `{"hits": [{"id": "d1"}]}`, false},
		{http.StatusOK, `{"results": []}`, true},
		{http.StatusOK, `{"hits": {"id": "d1"}}`, true},
		{http.StatusOK, `not json`, true},
		{http.StatusBadRequest, `{"error": "unknown field"}`, true},
		{http.StatusRequestEntityTooLarge, `too large`, true},
		{http.StatusTooManyRequests, `slow down`, false},
		{http.StatusInternalServerError, `oops`, false},
		{http.StatusServiceUnavailable, `busy`, false},
	}
	for _, tt := range tests {
		t.Run(http.StatusText(tt.status)+" "+tt.body, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(tt.status)
				io.WriteString(w, tt.body)
			}))
			defer srv.Close()
			s, err := httpbackend.NewSearcher(httpbackend.SearchOptions{URL: srv.URL + "/search", Body: `{"q": {{ .query }}}`, HealthURL: srv.URL,
				Response: httpbackend.Response{Hits: "hits", ID: "id"}})
			if err != nil {
				t.Fatal(err)
			}
			_, err = s.Search(context.Background(), backend.SearchRequest{Query: "q", K: 10})
			if got := errors.Is(err, backend.ErrSearchSetup); got != tt.setup {
				t.Errorf("error %v: ErrSearchSetup %v, want %v", err, got, tt.setup)
			}
		})
	}
}
