package embed

import (
	"maps"
	"testing"
)

// TestTermTableCountsLikeCountTerms: the fit's map-free tokenizer finds
// the terms and counts countTerms finds (the one queries and EmbedDocuments
// use), ASCII fast path and Unicode lowercasing alike.
func TestTermTableCountsLikeCountTerms(t *testing.T) {
	texts := []string{
		"",
		"a I of",
		"Running runners RUN ran; the run-time is 42 ms (x2)",
		"Ünïcode ÉCOLE école Straße STRASSE",
		"İstanbul ΣΊΣΥΦΟΣ σίσυφος ǅemal",
		"bad \xff\xfe bytes\xffinside and\x80out",
		"naïve café CAFÉ cafe 12ab AB12 ab",
		"ﬁnance ﬁnance Ⅻ ⅻ ٣٤ digits١٢",
		"repeated repeated repeated words words",
	}
	tbl := newTermTable()
	for _, text := range texts {
		got := map[string]int{}
		for _, tc := range tbl.count(text) {
			got[tbl.terms[tc.id]] = int(tc.n)
		}
		if want := countTerms(text, nil); !maps.Equal(got, want) {
			t.Errorf("%q: termTable counts %v, countTerms %v", text, got, want)
		}
	}
	// Document frequencies: each text counts once per term.
	if id := tbl.stem["repeat"]; tbl.df[id] != 1 {
		t.Errorf("df of %q = %d, want 1", "repeat", tbl.df[id])
	}
	if id := tbl.stem["run"]; tbl.df[id] != 1 {
		t.Errorf("df of %q = %d, want 1", "run", tbl.df[id])
	}
}

// TestTokenizeCorpusKeepsNoViewOfItsBuffer: tokenizeCorpus reads every
// text into one reused buffer per goroutine; the terms it interns (the
// Unicode ones included, which lowercasing may leave as they are) must be
// copies, not views the next text overwrites.
func TestTokenizeCorpusKeepsNoViewOfItsBuffer(t *testing.T) {
	texts := []string{
		"école naïve straße",
		"zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz",
		"σίσυφος café",
		"yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy",
		"école σίσυφος",
	}
	tk := tokenizeCorpus(Strings(texts))
	for i, text := range texts {
		tbl := tk.tables[i%len(tk.tables)]
		got := map[string]int{}
		for _, tc := range tk.docs[i] {
			got[tbl.terms[tc.id]] = int(tc.n)
		}
		if want := countTerms(text, nil); !maps.Equal(got, want) {
			t.Errorf("text %d %q: tokenizeCorpus counts %v, countTerms %v", i, text, got, want)
		}
	}
}
