package replay

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/fusiontune/fusiontune/backend/fusion"
)

// TestEncodeCollectionLineEqualsEncodingJSON: a collection line is
// written byte for byte as encoding/json writes it (HTML unescaped), its
// candidate lists without reflection when they are plain: scores of every
// magnitude (exponent forms, -0), several retrievers (sorted), nil and
// empty lists, and lines that fall back to encoding/json (ids to escape,
// non-ASCII, HTML characters) or fail as it fails (a NaN score).
func TestEncodeCollectionLineEqualsEncodingJSON(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	scores := []float64{0, math.Copysign(0, -1), 1, -1, 0.1, 1e-6, 9.99e-7, 1e-7, 1.5e-10, 1e20, 1e21, 1.2345e300, -3.3e-9, 0.13453689, 123456789}
	list := func(n int, id func(i int) string) []fusion.Candidate {
		out := make([]fusion.Candidate, n)
		for i := range out {
			out[i] = fusion.Candidate{ID: id(i), DocID: id(i / 2), Score: scores[rng.IntN(len(scores))] * float64(1+rng.IntN(3)), Rank: i + 1}
		}
		return out
	}
	plain := func(i int) string { return fmt.Sprint("doc-", i) }
	base := Line{ID: "q1", Text: "a <query> & \"text\"\n", Category: "c", Judgments: map[string]int{"d1": 2}, RequestID: "r/1"}
	cases := map[string]map[string][]fusion.Candidate{
		"none":       nil,
		"empty":      {},
		"one":        {"bm25": list(5, plain)},
		"two sorted": {"dense": list(30, plain), "bm25": list(30, plain), "a": list(1, plain)},
		"nil list":   {"bm25": nil, "dense": list(2, plain)},
		"empty list": {"bm25": {}},
		"quote":      {"bm25": list(3, func(i int) string { return fmt.Sprint(`d"`, i) })},
		"unicode":    {"bm25": list(3, func(i int) string { return fmt.Sprint("café", i) })},
		"html":       {"bm25": list(3, func(i int) string { return fmt.Sprint("a<b>&", i) })},
		"control":    {"bm25": list(3, func(i int) string { return fmt.Sprint("a\tb", i) })},
		"nan":        {"bm25": {{ID: "a", DocID: "a", Score: math.NaN(), Rank: 1}}},
		"infinite":   {"bm25": {{ID: "a", DocID: "a", Score: math.Inf(1), Rank: 1}}},
	}
	for name, cands := range cases {
		t.Run(name, func(t *testing.T) {
			l := base
			l.Candidates = cands
			var want, got bytes.Buffer
			wenc := json.NewEncoder(&want)
			wenc.SetEscapeHTML(false)
			wantErr := wenc.Encode(l)
			got.WriteString("header\n")
			genc := json.NewEncoder(&got)
			genc.SetEscapeHTML(false)
			gotErr := encodeCollectionLine(genc, &got, l)
			if (wantErr == nil) != (gotErr == nil) {
				t.Fatalf("error %v, encoding/json's %v", gotErr, wantErr)
			}
			if wantErr != nil {
				return
			}
			if g := bytes.TrimPrefix(got.Bytes(), []byte("header\n")); !bytes.Equal(g, want.Bytes()) {
				t.Errorf("wrote\n%s\nencoding/json\n%s", g, want.Bytes())
			}
		})
	}
}
