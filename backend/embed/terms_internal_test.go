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
