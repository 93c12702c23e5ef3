package searchwire_test

import (
	"encoding/json"
	"math"
	"reflect"
	"testing"
	"time"

	"github.com/fusiontune/fusiontune/internal/searchwire"
)

// decodedAlike checks that DecodeResponse gives what json.Unmarshal
// gives for body (the same value, or an error from both), and reports
// whether the engine-shape scanner read it (fast) rather than
// json.Unmarshal.
func decodedAlike(t *testing.T, name string, body []byte) (fast bool) {
	t.Helper()
	var want searchwire.Response
	wantErr := json.Unmarshal(body, &want)
	got, err := searchwire.DecodeResponse[searchwire.Response](body)
	if (err != nil) != (wantErr != nil) || err == nil && !reflect.DeepEqual(got, want) {
		t.Errorf("%s: decoded %+v (error %v), json.Unmarshal %+v (error %v)", name, got, err, want, wantErr)
	}
	_, fast = searchwire.ScanResponse[searchwire.Response](body)
	return fast
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
		if _, err := searchwire.DecodeAnswer[searchwire.Response](line); err == nil && !json.Valid(line) {
			t.Fatalf("accepted a line that is not JSON: %q", line)
		}
	})
}

// TestAnswerRoundTrip: DecodeAnswer reads back what AppendAnswer and
// AppendAnswerError write: the response without hit texts (a hit's chunk
// is its document unless written), candidates in their shortest forms
// with their ranks, variants, timings; a failed request's status and
// error; the elapsed time to the microsecond.
func TestAnswerRoundTrip(t *testing.T) {
	full := benchResponse(4, 6, false, true)
	full.Candidates["dense"][3].Rank = 9 // a rank not its position
	full.Candidates["empty"] = []searchwire.Candidate{}
	for _, tc := range []struct {
		name string
		resp searchwire.Response
	}{
		{"full", full},
		{"no hits", searchwire.Response{Hits: []searchwire.Hit{}, Routing: "no_results"}},
		{"nil hits", searchwire.Response{}},
		{"chunks", searchwire.Response{Hits: []searchwire.Hit{{DocID: "d", ChunkID: "d#3", Score: -0.5}, {DocID: "e", ChunkID: "e", Score: 1e-9}}}},
		{"escapes", searchwire.Response{Hits: []searchwire.Hit{{DocID: "a\"<b>\u2028", ChunkID: "a\"<b>\u2028", Score: 2}}, Routing: "ünï"}},
		{"rerank scores", searchwire.Response{Hits: []searchwire.Hit{{DocID: "d", ChunkID: "d", Score: 1}}, Timings: &searchwire.Timings{RerankMS: 0.25},
			Rerank: map[string]float64{"d": 0.91, "e#2": -1.5e-9, "q\"x": 0}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			line, ok := searchwire.AppendAnswer([]byte("x"), 3, &tc.resp, 1500*time.Microsecond)
			if !ok || line[0] != 'x' || line[len(line)-1] != '\n' || !json.Valid(line[1:]) {
				t.Fatalf("AppendAnswer: %v, %q", ok, line)
			}
			a, err := searchwire.DecodeAnswer[searchwire.Response](line[1 : len(line)-1])
			if err != nil {
				t.Fatal(err)
			}
			want := tc.resp
			for i := range want.Hits {
				if want.Hits[i].ChunkID == "" {
					want.Hits[i].ChunkID = want.Hits[i].DocID
				}
			}
			if a.Index != 3 || a.Elapsed != 1500*time.Microsecond || a.Status != 0 || !reflect.DeepEqual(a.Response, want) {
				t.Errorf("decoded %+v\nwant %+v", a, want)
			}
		})
	}
	line := searchwire.AppendAnswerError(nil, 5, 400, `k: must be <= 1000 "(got 2000)"`)
	a, err := searchwire.DecodeAnswer[searchwire.Response](line[:len(line)-1])
	if err != nil || a.Index != 5 || a.Status != 400 || a.Error != `k: must be <= 1000 "(got 2000)"` || a.Response.Hits != nil {
		t.Errorf("error line %s: %+v, %v", line, a, err)
	}
	bad := searchwire.Response{Hits: []searchwire.Hit{{DocID: "d", Score: math.Inf(1)}}}
	if out, ok := searchwire.AppendAnswer([]byte("x"), 0, &bad, 0); ok || string(out) != "x" {
		t.Errorf("an infinite score: %v, %q; want false and dst as it was", ok, out)
	}
	for _, l := range []string{`{"hits":[]}`, `{"i":0,"hits":[["d"]]}`, `{"i":1,"other":2}`} {
		if _, err := searchwire.DecodeAnswer[searchwire.Response]([]byte(l)); err == nil {
			t.Errorf("%s: no error", l)
		}
	}
}
