package searchwire_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/fusiontune/fusiontune/internal/searchwire"
)

// benchResponse is a response as the engine gives a replay: hits (with
// text when text), each retriever's candidate list of cands (with
// candidates), two fusion variants and timings.
func benchResponse(hits, cands int, text, candidates bool) searchwire.Response {
	mk := func(n, seed int) []searchwire.Hit {
		out := make([]searchwire.Hit, n)
		for i := range out {
			id := fmt.Sprintf("doc-%05d", (i*7919+seed*104729)%99991)
			h := searchwire.Hit{DocID: id, ChunkID: id, Score: 1/float64(61+i) + float64(seed)*1e-9}
			if i%3 == 1 {
				h.ChunkID = id + "#2"
			}
			if text {
				h.Text = strings.Repeat("hybrid search fuses lexical and dense ranks; ", 4) + "naïve café…"
			}
			out[i] = h
		}
		return out
	}
	r := searchwire.Response{Hits: mk(hits, 0), Routing: "search",
		Variants: []searchwire.Variant{{Hits: mk(hits, 1), Routing: "search"}, {Hits: mk(hits, 2), Routing: "search"}},
		Timings:  &searchwire.Timings{LexicalMS: 0.412, DenseMS: 1.037, FusionMS: 0.061}}
	if candidates {
		r.Candidates = map[string][]searchwire.Candidate{}
		for k, name := range []string{"bm25", "dense"} {
			list := make([]searchwire.Candidate, cands)
			for j := range list {
				id := fmt.Sprintf("doc-%05d", (j*31+k*17)%99991)
				c := searchwire.Candidate{ID: id, DocID: id, Score: 25.0/float64(j+1) + 0.123456789, Rank: j + 1}
				if j%4 == 2 {
					c.ID = id + "#1"
				}
				list[j] = c
			}
			r.Candidates[name] = list
		}
	}
	return r
}

// untimed is r without timings, which the scanner leaves to
// encoding/json in a /search body.
func untimed(r searchwire.Response) searchwire.Response {
	r.Timings = nil
	return r
}

// BenchmarkWireAppendResponse writes a /search body of 20 hits with
// their text, two variants and timings.
func BenchmarkWireAppendResponse(b *testing.B) {
	resp := benchResponse(20, 0, true, false)
	buf := make([]byte, 0, 64<<10)
	for b.Loop() {
		buf, _ = searchwire.AppendResponse(buf[:0], &resp)
	}
	b.SetBytes(int64(len(buf)))
}

// batchLine is BenchmarkWireAppendAnswer's line: 20 hits, two variants,
// two candidate lists of 100 and timings.
func batchLine() (searchwire.Response, []byte) {
	resp := benchResponse(20, 100, false, true)
	line, _ := searchwire.AppendAnswer(nil, 7, &resp, 1234*time.Microsecond)
	return resp, line
}

// BenchmarkWireAppendAnswer writes a /search/batch answer line of a
// replay's collection.
func BenchmarkWireAppendAnswer(b *testing.B) {
	resp, _ := batchLine()
	buf := make([]byte, 0, 64<<10)
	for b.Loop() {
		buf, _ = searchwire.AppendAnswer(buf[:0], 7, &resp, 1234*time.Microsecond)
	}
	b.SetBytes(int64(len(buf)))
}

func benchDecode(b *testing.B, body []byte) {
	for b.Loop() {
		if _, err := searchwire.DecodeResponse[searchwire.Response](body); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(int64(len(body)))
}

// BenchmarkWireDecodeResponse reads a /search body of 20 hits with text
// and two variants.
func BenchmarkWireDecodeResponse(b *testing.B) {
	body, _ := json.Marshal(untimed(benchResponse(20, 0, true, false)))
	benchDecode(b, body)
}

// BenchmarkWireDecodeExplain reads a /search body with candidate lists
// (explain: two lists of 100).
func BenchmarkWireDecodeExplain(b *testing.B) {
	body, _ := json.Marshal(untimed(benchResponse(20, 100, false, true)))
	benchDecode(b, body)
}

// BenchmarkWireDecodeAnswer reads BenchmarkWireAppendAnswer's line.
func BenchmarkWireDecodeAnswer(b *testing.B) {
	_, line := batchLine()
	line = line[:len(line)-1]
	for b.Loop() {
		if _, err := searchwire.DecodeAnswer[searchwire.Response](line); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(int64(len(line)))
}
