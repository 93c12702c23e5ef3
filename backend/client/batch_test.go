package client_test

import (
	"context"
	"errors"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/backend/client"
	"github.com/fusiontune/fusiontune/backend/fusion"
)

// TestSearchBatchDecodesEveryForm checks the decoding of each form an
// answer line of /search/batch may take (the engine's own answers are
// checked against /search in backend/engine's TestSearchBatchEqualsSearch),
// answers in any order.
func TestSearchBatchDecodesEveryForm(t *testing.T) {
	lines := `{"i":1,"status":503,"error":"engine: not ready (indexing)"}` + "\n" +
		`{"i":0,"ms":0.25,"hits":[["d1",0.5],["d2","d2#1",-1e-07]],"routing":"search",` +
		`"candidates":{"bm25":[["d1",12.5],["d2#1","d2",3],["d3","d3",1,7]],"dense":[]},` +
		`"variants":[{"hits":[],"routing":"no_results"},{"hits":[["d\u00e9",1]]}],"timings":{"lexical_ms":0.1,"dense_ms":0.2,"fusion_ms":0.03}}` + "\n"
	url := server(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/search/batch" || r.Method != http.MethodPost {
			http.NotFound(w, r)
			return
		}
		w.Write([]byte(lines))
	}))
	c, err := client.New(url)
	if err != nil {
		t.Fatal(err)
	}
	var got []backend.BatchAnswer
	if err := c.SearchBatch(context.Background(), []backend.SearchRequest{{Query: "a"}, {Query: "b"}}, func(a backend.BatchAnswer) {
		got = append(got, a)
	}); err != nil {
		t.Fatal(err)
	}
	want0 := backend.SearchResponse{
		Hits:    []backend.Hit{{DocID: "d1", ChunkID: "d1", Score: 0.5}, {DocID: "d2", ChunkID: "d2#1", Score: -1e-07}},
		Routing: "search",
		Candidates: map[string][]fusion.Candidate{
			"bm25":  {{ID: "d1", DocID: "d1", Score: 12.5, Rank: 1}, {ID: "d2#1", DocID: "d2", Score: 3, Rank: 2}, {ID: "d3", DocID: "d3", Score: 1, Rank: 7}},
			"dense": {},
		},
		Variants: []backend.Variant{{Hits: []backend.Hit{}, Routing: "no_results"}, {Hits: []backend.Hit{{DocID: "dé", ChunkID: "dé", Score: 1}}}},
		Timings:  &backend.StageTimings{LexicalMS: 0.1, DenseMS: 0.2, FusionMS: 0.03},
	}
	if len(got) != 2 || got[0].Index != 1 || got[1].Index != 0 {
		t.Fatalf("answers %+v: want request 1, then 0", got)
	}
	if err := got[0].Err; !errors.Is(err, client.ErrStatus) || !strings.Contains(err.Error(), "503 Service Unavailable: engine: not ready") {
		t.Errorf("request 1: error %v", err)
	}
	if got[1].Err != nil || got[1].Elapsed != 250*time.Microsecond || !reflect.DeepEqual(got[1].Response, want0) {
		t.Errorf("request 0: %+v (%v, %v)\nwant %+v", got[1].Response, got[1].Err, got[1].Elapsed, want0)
	}
}

// TestSearchBatchFailures checks the batch's own failures: a service
// without the endpoint (backend.ErrBatchUnsupported, nothing answered),
// a refused batch, answers that stop early, a malformed or repeated
// answer.
func TestSearchBatchFailures(t *testing.T) {
	cases := []struct {
		name    string
		status  int
		body    string
		want    string
		unsupp  bool
		answers int
	}{
		{"no endpoint", 404, `404 page not found`, "batch search not supported", true, 0},
		{"method not allowed", 405, `{"error":"no"}`, "batch search not supported", true, 0},
		{"refused", 400, `{"error":"invalid search request: batch: line 1: query: must not be empty"}`, "400 Bad Request: invalid search request: batch: line 1", false, 0},
		{"cut short", 200, `{"i":0,"ms":1,"hits":[]}` + "\n", "the answers ended after 1 of 2 requests", false, 1},
		{"malformed answer", 200, `{"i":0,"hits":[["d"]]}` + "\n", "decode answer", false, 0},
		{"answered twice", 200, `{"i":0,"hits":[]}` + "\n" + `{"i":0,"hits":[]}` + "\n", "answered twice", false, 1},
		{"out of range", 200, `{"i":2,"hits":[]}` + "\n", "out of range", false, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			url := server(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(tc.status)
				w.Write([]byte(tc.body))
			}))
			c, err := client.New(url)
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			err = c.SearchBatch(context.Background(), []backend.SearchRequest{{Query: "a"}, {Query: "b"}}, func(backend.BatchAnswer) { n++ })
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v: want %q", err, tc.want)
			}
			if errors.Is(err, backend.ErrBatchUnsupported) != tc.unsupp {
				t.Errorf("error %v: ErrBatchUnsupported %v, want %v", err, !tc.unsupp, tc.unsupp)
			}
			if n != tc.answers {
				t.Errorf("%d answers, want %d", n, tc.answers)
			}
		})
	}
}

// TestSearchBatchIdleTimeout checks that a service that stops answering
// ends the batch after the client's timeout, not never.
func TestSearchBatchIdleTimeout(t *testing.T) {
	url := server(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"i":0,"hits":[]}` + "\n"))
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	c, err := client.New(url, client.WithHTTPClient(&http.Client{Timeout: 200 * time.Millisecond}))
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	err = c.SearchBatch(context.Background(), []backend.SearchRequest{{Query: "a"}, {Query: "b"}}, func(backend.BatchAnswer) {})
	if err == nil || !strings.Contains(err.Error(), "no answer for 200ms") || time.Since(start) > 5*time.Second {
		t.Fatalf("error %v after %s: want no answer for 200ms", err, time.Since(start))
	}
}
