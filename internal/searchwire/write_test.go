package searchwire_test

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/fusiontune/fusiontune/internal/searchwire"
)

// sameJSON fails unless appendSearchResponse writes json.Marshal's bytes
// for resp, or declines (false) exactly where json.Marshal fails or
// candidates are present.
func sameJSON(t *testing.T, resp searchwire.Response) {
	t.Helper()
	want, err := json.Marshal(resp)
	got, ok := searchwire.AppendResponse([]byte("prefix"), &resp)
	if string(got[:6]) != "prefix" {
		t.Fatalf("dst overwritten: %q", got)
	}
	switch {
	case err != nil && ok:
		t.Fatalf("json.Marshal fails (%v), the encoder wrote %s", err, got[6:])
	case err == nil && !ok && len(resp.Candidates) == 0:
		t.Fatalf("the encoder declined %s", want)
	case ok && string(got[6:]) != string(want):
		t.Fatalf("\n got %s\nwant %s", got[6:], want)
	}
}

// TestAppendSearchResponse: the hand encoder writes json.Marshal's bytes
// for the shapes and values a response can take: nil and empty hits,
// omitted fields, variants, timings, every escape encoding/json makes
// (quotes, backslashes, control bytes, <, > and &, invalid UTF-8, U+2028
// and U+2029), and floats across the range where encoding/json switches
// between plain and exponent notation; it declines infinities, NaN and
// candidate lists.
func TestAppendSearchResponse(t *testing.T) {
	strs := []string{"", "plain", `q"uote`, `back\slash`, "tab\there", "nl\ncr\rff\fbs\b", "\x00\x01\x1f\x7f",
		"<b>&amp;</b>", "ünïcödé …", "bad \xff utf8 \xc3", "ls\u2028ps\u2029", "\u2027\u202a", "日本語", "emoji 🙂"}
	floats := []float64{0, math.Copysign(0, -1), 1, -1, 0.5, 1.0 / 3, 0.016393442622950821, 1e-6, 9.99e-7, 1e-7, 1.5e-300,
		5e-324, 1e20, 1e21, 123456789.125, -2.5e-9, math.MaxFloat64, 60}
	tests := []struct {
		name string
		resp searchwire.Response
	}{
		{"zero", searchwire.Response{}},
		{"empty hits", searchwire.Response{Hits: []searchwire.Hit{}, Routing: "no_results"}},
		{"variants", searchwire.Response{Hits: []searchwire.Hit{{DocID: "d", Score: 1}}, Variants: []searchwire.Variant{{}, {Hits: []searchwire.Hit{}}, {Hits: []searchwire.Hit{{DocID: "e", ChunkID: "e#1", Score: 0.25, Text: "t"}}, Routing: "search"}}}},
		{"timings", searchwire.Response{Hits: []searchwire.Hit{}, Timings: &searchwire.Timings{LexicalMS: 0.123, DenseMS: 0, FusionMS: 1e-7}}},
		{"explain", searchwire.Response{Hits: []searchwire.Hit{}, Candidates: nil}},
		{"rerank timing", searchwire.Response{Hits: []searchwire.Hit{}, Timings: &searchwire.Timings{LexicalMS: 1, RerankMS: 0.5}}},
	}
	for _, s := range strs {
		tests = append(tests, struct {
			name string
			resp searchwire.Response
		}{"string " + s, searchwire.Response{Hits: []searchwire.Hit{{DocID: s, ChunkID: s, Score: 0.5, Text: s}}, Routing: s}})
	}
	for _, x := range floats {
		tests = append(tests, struct {
			name string
			resp searchwire.Response
		}{"float", searchwire.Response{Hits: []searchwire.Hit{{DocID: "d", Score: x}, {DocID: "e", Score: -x}}, Timings: &searchwire.Timings{LexicalMS: x, DenseMS: -x, FusionMS: x / 7}}})
	}
	for _, x := range []float64{math.Inf(1), math.Inf(-1), math.NaN()} {
		tests = append(tests, struct {
			name string
			resp searchwire.Response
		}{"not finite", searchwire.Response{Hits: []searchwire.Hit{{DocID: "d", Score: x}}}},
			struct {
				name string
				resp searchwire.Response
			}{"not finite timing", searchwire.Response{Timings: &searchwire.Timings{FusionMS: x}}},
			struct {
				name string
				resp searchwire.Response
			}{"not finite variant", searchwire.Response{Variants: []searchwire.Variant{{Hits: []searchwire.Hit{{Score: x}}}}}})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { sameJSON(t, tt.resp) })
	}
	if _, ok := searchwire.AppendResponse(nil, &searchwire.Response{Candidates: map[string][]searchwire.Candidate{"bm25": {}}}); ok {
		t.Error("candidates: the encoder did not leave them to encoding/json")
	}
}

// FuzzSearchResponseJSON: for any strings and numbers, the hand encoder
// writes json.Marshal's bytes or declines where json.Marshal fails.
func FuzzSearchResponseJSON(f *testing.F) {
	f.Add("doc-1", "doc-1#0", "text <b> \"quoted\" \u2028", "search", 0.5, 0.001)
	f.Add("", "", "\xff\xfe", "", math.Inf(1), 1e21)
	f.Add("ü", "\x00", "a\\b", "no_results", 1e-7, -0.0)
	f.Fuzz(func(t *testing.T, doc, chunk, text, routing string, score, ms float64) {
		hits := []searchwire.Hit{{DocID: doc, ChunkID: chunk, Score: score, Text: text}, {DocID: text, Score: ms}}
		sameJSON(t, searchwire.Response{Hits: hits, Routing: routing,
			Variants: []searchwire.Variant{{Hits: hits[1:], Routing: doc}},
			Timings:  &searchwire.Timings{LexicalMS: ms, DenseMS: score, FusionMS: 0}})
	})
}
