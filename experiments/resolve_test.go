package experiments_test

import (
	"errors"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/experiments"
)

func judged(id string, js ...experiments.Judgment) experiments.Query {
	return experiments.Query{ID: id, Text: "q " + id, Judgments: js}
}

func TestResolveSpans(t *testing.T) {
	docs := []experiments.Document{
		{ID: "a", Text: "Intro.\n\nThe  Quick\tbrown FOX jumps over the lazy dog."},
		{ID: "b", Text: "İstanbul   ŞEHRİ is large; the quick brown fox lives there."},
		{ID: "c", Text: "nothing to see"},
	}
	tests := []struct {
		name    string
		excerpt string
		want    []string // original text of each span, in doc order
		docs    []string
	}{
		{"case and white space", "the quick brown fox jumps", []string{"The  Quick\tbrown FOX jumps"}, []string{"a"}},
		{"across a newline run", "intro. the quick", []string{"Intro.\n\nThe  Quick"}, []string{"a"}},
		{"in several documents", "quick brown fox", []string{"Quick\tbrown FOX", "quick brown fox"}, []string{"a", "b"}},
		{"multi-byte case folding", "istanbul şehri is", []string{"İstanbul   ŞEHRİ is"}, []string{"b"}},
		{"excerpt white space ignored", "  lazy \n dog. ", []string{"lazy dog."}, []string{"a"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			gs := &experiments.GoldenSet{Queries: []experiments.Query{judged("q", experiments.Judgment{Substring: tc.excerpt, Grade: 2})}}
			r, err := gs.Resolve(docs)
			if err != nil {
				t.Fatal(err)
			}
			q := r.Query("q")
			var got, gotDocs []string
			for _, s := range q.Spans {
				for _, d := range docs {
					if d.ID == s.DocID {
						got = append(got, d.Text[s.Start:s.End])
					}
				}
				gotDocs = append(gotDocs, s.DocID)
				if s.Grade != 2 {
					t.Errorf("span grade %d, want 2", s.Grade)
				}
			}
			if !slices.Equal(got, tc.want) || !slices.Equal(gotDocs, tc.docs) {
				t.Errorf("spans %q in %v, want %q in %v", got, gotDocs, tc.want, tc.docs)
			}
			if multi := len(tc.docs) > 1; multi != (len(r.Warnings) == 1) {
				t.Errorf("warnings %v (several documents: %v)", r.Warnings, multi)
			}
		})
	}
}

func TestResolveJudgments(t *testing.T) {
	docs := []experiments.Document{
		{ID: "doc1", Text: "alpha beta gamma delta epsilon"},
		{ID: "doc10", Text: "zeta eta theta"},
		{ID: "faq-returns", Text: "returns are free"},
		{ID: "faq-returns-eu", Text: "returns in the EU"},
	}
	gs := &experiments.GoldenSet{Queries: []experiments.Query{
		judged("max",
			experiments.Judgment{DocID: "doc1", Grade: 1},
			experiments.Judgment{Substring: "beta gamma delta", Grade: 3},
			experiments.Judgment{DocID: "doc10", Grade: 2},
			experiments.Judgment{Pattern: "doc10", Grade: 0}),
		judged("pattern", experiments.Judgment{Pattern: "faq-returns(-.*)?", Grade: 3}, experiments.Judgment{Pattern: "doc1", Grade: 1}),
		judged("missing", experiments.Judgment{DocID: "gone", Grade: 2}),
		{ID: "routed", ExpectedRouting: "no_results"},
	}}
	r, err := gs.Resolve(docs)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]map[string]int{
		"max":     {"doc1": 3, "doc10": 2},
		"pattern": {"faq-returns": 3, "faq-returns-eu": 3, "doc1": 1},
		"missing": {"gone": 2},
		"routed":  {},
	}
	for id, w := range want {
		if got := r.Query(id).Judgments; !maps.Equal(got, w) {
			t.Errorf("query %q: judgments %v, want %v", id, got, w)
		}
	}
	if len(r.Warnings) != 0 || len(r.Missing) != 1 || r.Missing[0].DocID != "gone" || r.Missing[0].Query != "missing" {
		t.Errorf("warnings %v, missing %v; want document gone of query missing missing", r.Warnings, r.Missing)
	}
}

func TestResolveErrors(t *testing.T) {
	docs := []experiments.Document{{ID: "d1", Text: "some text here"}}
	gs := &experiments.GoldenSet{Queries: []experiments.Query{
		judged("q1", experiments.Judgment{Substring: "text that is nowhere", Grade: 3, Pos: "g.json:3:9"}),
		judged("q2", experiments.Judgment{Pattern: "x-.*", Grade: 3, Pos: "g.json:7:9"}),
	}}
	_, err := gs.Resolve(docs)
	var ps experiments.Problems
	if !errors.As(err, &ps) {
		t.Fatalf("error %v is not Problems", err)
	}
	want := `g.json:3:9: passage_substring: query "q1": excerpt "text that is nowhere" not found in any document
g.json:7:9: doc_id_pattern: query "q2": pattern "x-.*" matches no document id`
	if err.Error() != want {
		t.Errorf("error:\n%v\nwant:\n%s", err, want)
	}
}

func TestChunkJudgments(t *testing.T) {
	text := "0123456789abcdefghij" // the excerpt "56789abc" spans bytes [5, 13)
	docs := []experiments.Document{{ID: "d", Text: text}, {ID: "e", Text: "whole document judged"}}
	gs := &experiments.GoldenSet{Queries: []experiments.Query{judged("q",
		experiments.Judgment{Substring: "56789ABC", Grade: 3},
		experiments.Judgment{DocID: "e", Grade: 1},
		experiments.Judgment{DocID: "d", Grade: 1})}}
	r, err := gs.Resolve(docs)
	if err != nil {
		t.Fatal(err)
	}
	ci := experiments.IndexChunks([]experiments.Chunk{
		{ID: "d#0", DocID: "d", Start: 0, End: 5},   // ends where the span starts
		{ID: "d#1", DocID: "d", Start: 4, End: 6},   // shares byte 5
		{ID: "d#2", DocID: "d", Start: 12, End: 20}, // shares byte 12
		{ID: "d#3", DocID: "d", Start: 13, End: 20}, // starts where the span ends
		{ID: "e#0", DocID: "e", Start: 0, End: 5},
		{ID: "e#1", DocID: "e", Start: 5, End: 21},
	})
	got := r.Query("q").ChunkJudgments(ci)
	want := map[string]int{"d#0": 1, "d#1": 3, "d#2": 3, "d#3": 1, "e#0": 1, "e#1": 1}
	if !maps.Equal(got, want) {
		t.Errorf("chunk judgments %v, want %v", got, want)
	}
}

// TestResolveRandomExcerpts cuts excerpts from random documents, perturbs
// their case and white space, and checks that every span found reads back,
// normalized, as the excerpt, and that the source position is among them.
func TestResolveRandomExcerpts(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	words := strings.Fields("the of and Ärger ΣΊΣΥΦΟΣ claim cells protein gene İzmir a b c risk mouse human")
	var docs []experiments.Document
	for i := range 200 {
		var b strings.Builder
		for range 30 + rng.IntN(60) {
			b.WriteString(words[rng.IntN(len(words))])
			b.WriteString([]string{" ", "  ", "\n", "\t "}[rng.IntN(4)])
		}
		docs = append(docs, experiments.Document{ID: "doc" + strings.Repeat("x", i%3) + string(rune('a'+i%26)) + strings.Repeat("0", i/26), Text: b.String()})
	}
	norm := func(s string) string { return strings.ToLower(strings.Join(strings.Fields(s), " ")) }
	for i := range 300 {
		d := docs[rng.IntN(len(docs))]
		toks := strings.Fields(d.Text)
		start := rng.IntN(len(toks) - 12)
		excerpt := strings.Join(toks[start:start+3+rng.IntN(9)], "   ")
		if i%2 == 0 {
			excerpt = strings.ToUpper(excerpt)
		}
		gs := &experiments.GoldenSet{Queries: []experiments.Query{judged("q", experiments.Judgment{Substring: excerpt, Grade: 1})}}
		r, err := gs.Resolve(docs)
		if err != nil {
			t.Fatalf("excerpt %q from %s: %v", excerpt, d.ID, err)
		}
		q := r.Query("q")
		if _, ok := q.Judgments[d.ID]; !ok {
			t.Fatalf("excerpt %q: source document %s not judged", excerpt, d.ID)
		}
		for _, x := range docs { // every document holding it, none other
			_, judged := q.Judgments[x.ID]
			if holds := strings.Contains(norm(x.Text), norm(excerpt)); holds != judged {
				t.Fatalf("excerpt %q: document %s judged %v, holds it %v", excerpt, x.ID, judged, holds)
			}
		}
		for _, s := range q.Spans {
			text := ""
			for _, x := range docs {
				if x.ID == s.DocID {
					text = x.Text
				}
			}
			if got := norm(text[s.Start:s.End]); got != norm(excerpt) {
				t.Fatalf("span %s[%d:%d] reads %q, want %q", s.DocID, s.Start, s.End, got, norm(excerpt))
			}
		}
	}
}

// TestResolveWholeCorpus: a doc_id_pattern or passage_substring matching
// every document of a corpus (of three or more) grades everything alike
// and is refused; in a smaller corpus, or matching fewer, it is kept.
func TestResolveWholeCorpus(t *testing.T) {
	three := []experiments.Document{{ID: "kb-1", Text: "the boiler"}, {ID: "kb-2", Text: "the pipe"}, {ID: "kb-3", Text: "the radiator"}}
	tests := []struct {
		name string
		docs []experiments.Document
		j    experiments.Judgment
		want string
	}{
		{name: "pattern", docs: three, j: experiments.Judgment{Pattern: ".*", Grade: 1, Pos: "g.json:4:9"},
			want: `g.json:4:9: doc_id_pattern: query "q1": pattern ".*" matches every one of the corpus's 3 documents`},
		{name: "substring", docs: three, j: experiments.Judgment{Substring: "the", Grade: 1, Pos: "g.json:5:9"},
			want: `g.json:5:9: passage_substring: query "q1": excerpt "the" found in every one of the corpus's 3 documents`},
		{name: "pattern matching fewer", docs: three, j: experiments.Judgment{Pattern: "kb-[12]", Grade: 1}},
		{name: "small corpus", docs: three[:2], j: experiments.Judgment{Pattern: "kb-.*", Grade: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			gs := &experiments.GoldenSet{Queries: []experiments.Query{judged("q1", tt.j)}}
			_, err := gs.Resolve(tt.docs)
			if tt.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v\nwant %q", err, tt.want)
			}
		})
	}
}
