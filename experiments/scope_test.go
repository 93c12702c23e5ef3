package experiments_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/experiments"
)

// des058 is the book-and-chapter golden set and its corpus in testdata.
const (
	des058Golden = "testdata/des058/golden.json"
	des058Corpus = "testdata/des058/corpus.jsonl"
)

// readBookCorpus reads testdata's book corpus as resolution sees it, each
// document with its book and chapter fields; keep edits each document's
// fields (nil: kept as they are).
func readBookCorpus(t *testing.T, keep func(map[string]string) map[string]string) []experiments.Document {
	t.Helper()
	f, err := os.Open(des058Corpus)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var docs []experiments.Document
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var line struct {
			ID      string `json:"_id"`
			Text    string `json:"text"`
			Book    string `json:"book_slug"`
			Chapter int    `json:"chapter_number"`
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatal(err)
		}
		fields := map[string]string{experiments.ScopeBook: line.Book, experiments.ScopeChapter: fmt.Sprint(line.Chapter)}
		if keep != nil {
			fields = keep(fields)
		}
		docs = append(docs, experiments.Document{ID: line.ID, Text: line.Text, Fields: fields})
	}
	return docs
}

// TestBookChapterGoldenSet: the book-and-chapter golden set loads: its
// queries' book_slug and chapter_number scope their passages, notes are
// the notes, retrieval_intent is kept as metadata, and one warning lists
// the fields kept that way.
func TestBookChapterGoldenSet(t *testing.T) {
	gs, err := experiments.LoadGoldenSet(des058Golden, experiments.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(gs.Queries) != 9 || gs.NumJudgments() != 11 {
		t.Fatalf("%d queries, %d judgments; want 9, 11", len(gs.Queries), gs.NumJudgments())
	}
	want := des058Golden + ": query fields kept as metadata, not interpreted: retrieval_intent (9 queries)"
	if len(gs.Warnings) != 1 || gs.Warnings[0].Error() != want {
		t.Errorf("warnings %q, want one: %q", gs.Warnings, want)
	}
	q := gs.Query("sd-record-keeping")
	if q.Meta["retrieval_intent"] != "procedure" || !strings.HasPrefix(q.Notes, "the notebook sentence") {
		t.Errorf("meta %v, notes %q", q.Meta, q.Notes)
	}
	if got := q.Judgments[0].Scope.String(); got != `book_slug "practical-sourdough", chapter_number 1` {
		t.Errorf("scope %s", got)
	}
	if got := gs.ScopeKeys(); !slices.Equal(got, []string{"book_slug", "chapter_number"}) {
		t.Errorf("ScopeKeys = %q", got)
	}
}

// TestResolveScoped: a scoped excerpt resolves only within the documents
// of its book and chapter — the notebook sentence both books print goes
// to the sourdough book for one query and the beekeeping book for the
// other — and is an error saying why when the scope holds no match.
func TestResolveScoped(t *testing.T) {
	gs, err := experiments.LoadGoldenSet(des058Golden, experiments.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	unscoped := func(gs *experiments.GoldenSet) {
		for i := range gs.Queries {
			for k := range gs.Queries[i].Judgments {
				gs.Queries[i].Judgments[k].Scope = nil
			}
		}
	}
	rescope := func(id string, s experiments.Scope) func(*experiments.GoldenSet) {
		return func(gs *experiments.GoldenSet) {
			q := gs.Query(id)
			for k := range q.Judgments {
				q.Judgments[k].Scope = s
			}
		}
	}
	for _, tc := range []struct {
		name     string
		edit     func(*experiments.GoldenSet)
		fields   func(map[string]string) map[string]string
		judged   map[string][]string // query -> judged documents
		warnings int
		err      string
	}{
		{name: "scoped", judged: map[string][]string{
			"sd-record-keeping":   {"sourdough-01-2"},
			"bk-inspection-notes": {"beekeeping-02-1"},
			"sd-starter-feed":     {"sourdough-01-1", "sourdough-01-2"},
		}},
		{name: "unscoped: both books", edit: unscoped, warnings: 2, judged: map[string][]string{
			"sd-record-keeping":   {"beekeeping-02-1", "sourdough-01-2"},
			"bk-inspection-notes": {"beekeeping-02-1", "sourdough-01-2"},
		}},
		{name: "a chapter written as text", fields: func(f map[string]string) map[string]string {
			f[experiments.ScopeChapter] = "0" + f[experiments.ScopeChapter]
			return f
		}, judged: map[string][]string{"sd-record-keeping": {"sourdough-01-2"}}},
		{name: "the wrong chapter", edit: rescope("sl-capsize", experiments.Scope{"book_slug": "small-boat-sailing", "chapter_number": "2"}),
			err: `testdata/des058/golden.json:102:9: passage_substring: query "sl-capsize": excerpt "Swim round to the centreboard, pull it out fully and climb onto it, leaning back on the jib sheet" not found in any document with book_slug "small-boat-sailing", chapter_number 2: found only outside it, in 1 documents (sailing-03-1)`},
		{name: "a corpus without chapters", fields: func(f map[string]string) map[string]string {
			delete(f, experiments.ScopeChapter)
			return f
		}, err: `not found in any document with book_slug "practical-sourdough", chapter_number 1: no corpus document has a "chapter_number" field (a member of its line or of its "metadata" object)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			gs := cloneSet(gs)
			if tc.edit != nil {
				tc.edit(gs)
			}
			r, err := gs.Resolve(readBookCorpus(t, tc.fields))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v\nwant one containing %s", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(r.Warnings) != tc.warnings {
				t.Errorf("warnings %q, want %d", r.Warnings, tc.warnings)
			}
			for id, want := range tc.judged {
				got := slices.Sorted(maps.Keys(r.Query(id).Judgments))
				if !slices.Equal(got, want) {
					t.Errorf("%s judges %q, want %q", id, got, want)
				}
			}
		})
	}
}

// cloneSet copies gs deeply enough for a test to edit its judgments.
func cloneSet(gs *experiments.GoldenSet) *experiments.GoldenSet {
	c := *gs
	c.Queries = slices.Clone(gs.Queries)
	for i := range c.Queries {
		c.Queries[i].Judgments = slices.Clone(c.Queries[i].Judgments)
	}
	return &c
}

// TestPassageScope: a passage's own book_slug or chapter_number overrides
// its query's; a scope field must be a string or a number; a likely typo
// of a query field is an error with a did-you-mean, not metadata.
func TestPassageScope(t *testing.T) {
	ok := `{"queries": [{"id": "q", "query": "notebook", "book_slug": "practical-sourdough", "chapter_number": 1,
  "expected_passages": [{"passage_substring": "Keep a notebook of every change you make", "relevance": 3, "book_slug": "home-beekeeping", "chapter_number": "2"}]}]}`
	gs, err := experiments.ParseGoldenSet("g.json", []byte(ok))
	if err != nil {
		t.Fatal(err)
	}
	if got := gs.Queries[0].Judgments[0].Scope.String(); got != `book_slug "home-beekeeping", chapter_number 2` {
		t.Errorf("scope %s", got)
	}
	bad := `{"queries": [{"id": "q", "query": "x", "book_slug": {"a": 1}, "categroy": "howto",
  "expected_passages": [{"doc_id": "d", "relevance": 3, "chapter_number": true}]}]}`
	_, err = experiments.ParseGoldenSet("g.json", []byte(bad))
	for _, want := range []string{
		`g.json:1:53: queries[0].book_slug: expected a non-empty string or number (got a mapping)`,
		`g.json:1:63: queries[0].categroy: unknown field "categroy" (did you mean "category"?)`,
		`g.json:2:75: queries[0].expected_passages[0].chapter_number: expected a non-empty string or number (got "true")`,
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("err = %v\nwant it to contain %s", err, want)
		}
	}
}
