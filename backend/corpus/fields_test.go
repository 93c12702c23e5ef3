package corpus_test

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/backend/corpus"
)

// TestDocFields: the members asked for are kept as text — strings as
// themselves, numbers as their literal, booleans as words — from the line
// or its metadata object (the line's own member first); null, objects and
// lists are left out; a line with none of them keeps nil.
func TestDocFields(t *testing.T) {
	names := []string{"book_slug", "chapter_number", "draft"}
	for _, tc := range []struct {
		name, line string
		want       map[string]string
	}{
		{"top level", `{"_id": "a", "text": "t", "book_slug": "hobbit", "chapter_number": 3}`, map[string]string{"book_slug": "hobbit", "chapter_number": "3"}},
		{"metadata", `{"_id": "a", "text": "t", "metadata": {"book_slug": "hobbit", "chapter_number": 3.5}}`, map[string]string{"book_slug": "hobbit", "chapter_number": "3.5"}},
		{"the line first", `{"_id": "a", "text": "t", "book_slug": "mine", "metadata": {"book_slug": "theirs"}}`, map[string]string{"book_slug": "mine"}},
		{"scalars only", `{"_id": "a", "text": "t", "book_slug": null, "chapter_number": [1], "draft": false}`, map[string]string{"draft": "false"}},
		{"escaped", `{"_id": "a", "text": "t", "book_slug": "caf\u00e9 \"x\""}`, map[string]string{"book_slug": `café "x"`}},
		{"none", `{"_id": "a", "text": "t", "metadata": {}}`, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := corpus.DocFields([]byte(tc.line), names)
			if err != nil || !reflect.DeepEqual(got, tc.want) {
				t.Errorf("DocFields = %v, %v; want %v", got, err, tc.want)
			}
		})
	}
	if _, err := corpus.DocFields([]byte(`["book_slug"]`), names); err == nil {
		t.Error("a line that is no object: no error")
	}
}

// TestLoadFields: Load keeps Config.Fields on each document of a JSON
// lines corpus, and nothing without them.
func TestLoadFields(t *testing.T) {
	p := filepath.Join(t.TempDir(), "c.jsonl")
	lines := []string{
		`{"_id": "a", "text": "one", "book_slug": "b1", "chapter_number": 1}`,
		`{"_id": "b", "text": "two"}`,
	}
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := corpus.Load(corpus.Config{Path: p, Fields: []string{"book_slug", "chapter_number"}})
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string]string{"book_slug": "b1", "chapter_number": "1"}; !reflect.DeepEqual(c.Docs[0].Fields, want) || c.Docs[1].Fields != nil {
		t.Errorf("fields %v, %v", c.Docs[0].Fields, c.Docs[1].Fields)
	}
	plain, err := corpus.Load(corpus.Config{Path: p})
	if err != nil || plain.Docs[0].Fields != nil || plain.Hash != c.Hash {
		t.Errorf("without Fields: %v, fields %v, hash %s vs %s", err, plain.Docs[0].Fields, plain.Hash, c.Hash)
	}
}
