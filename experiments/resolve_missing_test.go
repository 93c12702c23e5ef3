package experiments_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/experiments"
)

// TestCheckMissing: judged documents missing from the corpus are an error
// listing each (capped) with a did-you-mean from the corpus ids, unless
// allowed; then a warning with the right counts.
func TestCheckMissing(t *testing.T) {
	docs := []experiments.Document{{ID: "doc-12", Text: "a"}, {ID: "doc-13", Text: "b"}, {ID: "faq-returns", Text: "c"}, {ID: "zzz", Text: "d"}}
	many := make([]experiments.Judgment, 25)
	for i := range many {
		many[i] = experiments.Judgment{DocID: fmt.Sprintf("absent-%02d", i), Grade: 1, Pos: fmt.Sprintf("g.json:%d:9", i+1)}
	}
	for _, tc := range []struct {
		name    string
		queries []experiments.Query
		allow   bool
		err     []string // lines of the error, in order ("" none)
		warn    string
		found   int
	}{
		{name: "all found", queries: []experiments.Query{judged("q1", experiments.Judgment{DocID: "doc-12", Grade: 2})}, found: 1},
		{name: "did you mean", queries: []experiments.Query{
			judged("q1", experiments.Judgment{DocID: "doc_12", Grade: 2, Pos: "g.json:3:5"}, experiments.Judgment{DocID: "doc_12", Grade: 3, Pos: "g.json:4:5"}, experiments.Judgment{DocID: "faq-returns", Grade: 1}),
			judged("q2", experiments.Judgment{DocID: "faq_returns", Grade: 1, Pos: "g.json:9:5"}, experiments.Judgment{DocID: "completely-different-id", Grade: 1, Pos: "g.json:10:5"}),
		}, err: []string{
			`g.json:3:5: doc_id: query "q1": document "doc_12" is not in the corpus (did you mean "doc-12" or "doc-13"?)`,
			`g.json:9:5: doc_id: query "q2": document "faq_returns" is not in the corpus (did you mean "faq-returns"?)`,
			`g.json:10:5: doc_id: query "q2": document "completely-different-id" is not in the corpus`,
			`g.json: judged documents not in the corpus: 3 (3 distinct ids, in a corpus of 4 documents); fix the ids, or set dataset.allow_missing_docs: true to score with them anyway`,
		}},
		{name: "allowed", allow: true, queries: []experiments.Query{
			judged("q1", experiments.Judgment{DocID: "doc_12", Grade: 2}, experiments.Judgment{DocID: "faq-returns", Grade: 1}),
			judged("q2", experiments.Judgment{DocID: "doc_12", Grade: 1}, experiments.Judgment{DocID: "doc-13", Grade: 1}, experiments.Judgment{DocID: "zzz", Grade: 1}),
		}, warn: "judged documents not in the corpus: 2 (1 distinct ids: doc_12), kept since dataset.allow_missing_docs is true: they count as relevant but can never be retrieved; judged documents found: 3", found: 3},
		{name: "capped", queries: []experiments.Query{judged("q1", many...)}, err: []string{"20 listed", "g.json: judged documents not in the corpus: 25 (25 distinct ids, in a corpus of 4 documents); 5 more than listed; fix the ids"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			gs := &experiments.GoldenSet{Source: "g.json", Queries: tc.queries}
			r, err := gs.Resolve(docs)
			if err != nil {
				t.Fatal(err)
			}
			warn, err := r.CheckMissing(docs, tc.allow)
			switch {
			case tc.err == nil && err != nil:
				t.Fatalf("error %v", err)
			case tc.err != nil && err == nil:
				t.Fatalf("no error")
			case tc.err != nil:
				lines := strings.Split(err.Error(), "\n")
				if tc.err[0] == "20 listed" {
					if len(lines) != 21 || !strings.HasPrefix(lines[20], tc.err[1]) {
						t.Errorf("%d lines, last %q", len(lines), lines[len(lines)-1])
					}
					return
				}
				if got, want := strings.Join(lines, "\n"), strings.Join(tc.err, "\n"); got != want {
					t.Errorf("error\n%s\nwant\n%s", got, want)
				}
				return
			}
			if (warn == nil) != (tc.warn == "") || (warn != nil && warn.Error() != tc.warn) {
				t.Errorf("warning %v, want %q", warn, tc.warn)
			}
			if got := r.JudgedFound(); got != tc.found {
				t.Errorf("judged documents found %d, want %d", got, tc.found)
			}
		})
	}
}
