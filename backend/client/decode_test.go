package client

import (
	"context"
	"encoding/json"
	"net"
	"reflect"
	"testing"
	"time"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/backend/engine"
)

// serveEngine starts the engine's HTTP server on the fixture corpus at
// 127.0.0.1:0 and returns its base URL; it stops when the test ends.
func serveEngine(t *testing.T) string {
	t.Helper()
	c, err := engine.LoadConfig("../engine/testdata/tiny.yaml")
	if err != nil {
		t.Fatal(err)
	}
	c.CacheDir = t.TempDir()
	e, err := engine.New(c, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- engine.NewServer(e, engine.ServerOptions{}).Serve(ctx, ln, nil) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
		e.Close()
	})
	return "http://" + ln.Addr().String()
}

// decodedAlike checks that decodeResponse gives what json.Unmarshal
// gives for body (the same value, or an error from both), and reports
// whether the engine-shape scanner read it (fast) rather than
// json.Unmarshal.
func decodedAlike(t *testing.T, name string, body []byte) (fast bool) {
	t.Helper()
	var want backend.SearchResponse
	wantErr := json.Unmarshal(body, &want)
	got, err := decodeResponse(body)
	if (err != nil) != (wantErr != nil) || err == nil && !reflect.DeepEqual(got, want) {
		t.Errorf("%s: decoded %+v (error %v), json.Unmarshal %+v (error %v)", name, got, err, want, wantErr)
	}
	_, fast = (&scanner{data: body}).response()
	return fast
}

// TestDecodeResponseEngineBodies: every answer of the real engine over
// loopback — hits, candidate lists (explain), fusion variants, no hits —
// decodes to what json.Unmarshal gives, through the scanner (timings are
// left to json.Unmarshal).
func TestDecodeResponseEngineBodies(t *testing.T) {
	c, err := New(serveEngine(t))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := c.Ready(ctx); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, body string
		fast       bool
	}{
		{"hits", `{"query":"distant galaxies telescope","k":5}`, true},
		{"explain", `{"query":"light pollution stars","k":1,"explain":true,"fusion":{"depth":50}}`, true},
		{"variants", `{"query":"mirror lens","k":10,"variants":[{"method":"rrf","k":10,"weights":{"bm25":1,"dense":0}},{"method":"rrf","k":20}]}`, true},
		{"explain and variants", `{"query":"telescope","k":3,"explain":true,"variants":[{"method":"rrf","k":5}]}`, true},
		{"no hits", `{"query":"zzzqqq","k":5}`, true},
		{"timings", `{"query":"telescope","k":3,"timings":true}`, false},
	} {
		status, body, err := c.Raw(context.Background(), []byte(tc.body))
		if err != nil || status != 200 {
			t.Fatalf("%s: status %d, error %v: %s", tc.name, status, err, body)
		}
		if fast := decodedAlike(t, tc.name, body); fast != tc.fast {
			t.Errorf("%s: read by the scanner %v, want %v (body %s)", tc.name, fast, tc.fast, body)
		}
	}
}

// TestDecodeResponseOtherBodies: strings with escapes or invalid UTF-8
// decode as json.Unmarshal decodes them, and bodies the scanner does not
// know — nulls, another backend's fields or spelling,
// keys given twice, bad numbers, trailing data — decode (or fail) as
// json.Unmarshal does.
func TestDecodeResponseOtherBodies(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		fast       bool
	}{
		{"plain", `{"hits":[{"doc_id":"a","chunk_id":"a#0","score":0.5,"text":"ünï…"}],"routing":"search"}`, true},
		{"spaces", " {\n\t\"hits\" : [ ] ,\r\n \"candidates\" : { \"bm25\" : [ ] } } \n", true},
		{"empty candidates", `{"hits":[],"candidates":{}}`, true},
		{"nulls where json leaves zero", `{"hits":null,"routing":null,"candidates":null,"variants":null}`, true},
		{"numbers", `{"hits":[{"doc_id":"a","score":-1.5e-3},{"doc_id":"b","score":0},{"doc_id":"c","score":12E+2}],"candidates":{"x":[{"id":"a","rank":-3}]}}`, true},
		{"escape", `{"hits":[{"doc_id":"a\"b","score":1}]}`, true},
		{"unicode escape", `{"hits":[{"doc_id":"\u00e9","score":1}]}`, true},
		{"invalid utf-8", "{\"hits\":[{\"doc_id\":\"a\xffb\",\"score\":1}]}", true},
		{"null element", `{"hits":[null]}`, false},
		{"null list", `{"candidates":{"bm25":null}}`, false},
		{"null field", `{"hits":[{"doc_id":null,"score":1}]}`, false},
		{"other case", `{"Hits":[{"DOC_ID":"a","score":1}]}`, false},
		{"unknown field", `{"hits":[],"took_ms":3}`, false},
		{"twice", `{"hits":[{"doc_id":"a"}],"hits":[{"doc_id":"b"}]}`, false},
		{"list twice", `{"candidates":{"x":[{"id":"a"}],"x":[{"id":"b"}]}}`, false},
		{"rank not an integer", `{"candidates":{"x":[{"id":"a","rank":1.5}]}}`, false},
		{"score too large", `{"hits":[{"doc_id":"a","score":1e999}]}`, false},
		{"leading zero", `{"hits":[{"doc_id":"a","score":01}]}`, false},
		{"string score", `{"hits":[{"doc_id":"a","score":"1"}]}`, false},
		{"trailing data", `{"hits":[]} x`, false},
		{"trailing NUL", "{\"hits\":[]}\x00", false},
		{"escaped quote at the end", `{"hits":[{"doc_id":"a\\\"","score":1}],"routing":"x\\"}`, true},
		{"html escapes", `{"hits":[{"doc_id":"a","text":"\u003cb\u003e \u0026 \ud83d\ude00 \ud800"}]}`, true},
		{"invalid utf-8 at the end", "{\"hits\":[{\"doc_id\":\"ab\xe2\x80\"}]}", true},
		{"control character", "{\"hits\":[{\"doc_id\":\"a\tb\"}]}", false},
		{"truncated", `{"hits":[{"doc_id":"a","sco`, false},
		{"not an object", `[]`, false},
		{"empty", ``, false},
		{"error body", `{"error":"bad request"}`, false},
	} {
		if fast := decodedAlike(t, tc.name, []byte(tc.body)); fast != tc.fast {
			t.Errorf("%s: read by the scanner %v, want %v", tc.name, fast, tc.fast)
		}
	}
}

// FuzzDecodeAnswer feeds arbitrary lines to the decoder of /search/batch
// answers: it returns an answer or an error, never panics, and accepts
// only JSON.
func FuzzDecodeAnswer(f *testing.F) {
	for _, s := range []string{
		`{"i":0,"ms":0.25,"hits":[["d1",0.5],["d2","d2#1",-1e-07]],"routing":"search","candidates":{"bm25":[["d1",12.5],["c","d",3],["d3","d3",1,7]]},"variants":[{"hits":[]}],"timings":{"lexical_ms":0.1,"dense_ms":0.2,"fusion_ms":0.03}}`,
		`{"i":3,"status":400,"error":"bad"}`, `{"i":1,"hits":null}`, `{"hits":[]}`, `{"i":0,"hits":[["d"]]}`, `[]`, ``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		if _, err := decodeAnswer(line); err == nil && !json.Valid(line) {
			t.Fatalf("accepted a line that is not JSON: %q", line)
		}
	})
}
