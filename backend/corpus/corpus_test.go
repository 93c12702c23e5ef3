package corpus_test

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/backend/corpus"
)

func TestLoadCorpus(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "notes", "sub"), 0o755)
	os.WriteFile(filepath.Join(dir, "notes", "b.md"), []byte("# B\nbee text"), 0o644)
	os.WriteFile(filepath.Join(dir, "notes", "sub", "a.txt"), []byte("a text"), 0o644)
	os.WriteFile(filepath.Join(dir, "notes", "skip.pdf"), []byte("binary"), 0o644)
	jsonl := filepath.Join(dir, "docs.jsonl")
	os.WriteFile(jsonl, []byte(`{"id": 7, "name": "Seven", "body": "seven text"}`+"\n\n"+`{"id": "x", "body": "no title"}`+"\n"), 0o644)

	tests := []struct {
		name string
		cfg  corpus.Config
		want []corpus.Document
	}{
		{"beir", corpus.Config{Path: "testdata/broken/../tiny/corpus.jsonl", Format: corpus.FormatBEIR}, nil},
		{"jsonl fields", corpus.Config{Path: jsonl, Format: corpus.FormatJSONL, IDField: "id", TitleField: "name", TextField: "body"},
			[]corpus.Document{{ID: "7", Title: "Seven", Text: "seven text"}, {ID: "x", Text: "no title"}}},
		{"dir", corpus.Config{Path: filepath.Join(dir, "notes"), Format: corpus.FormatDir},
			[]corpus.Document{{ID: "b.md", Text: "# B\nbee text"}, {ID: "sub/a.txt", Text: "a text"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := corpus.Load(tt.cfg)
			if err != nil {
				t.Fatal(err)
			}
			if len(c.Hash) != 64 {
				t.Errorf("hash %q: want 64 hex digits", c.Hash)
			}
			if tt.want == nil {
				if len(c.Docs) != 21 || c.Docs[0].ID != "astro-1" || c.Docs[0].Title != "Refracting telescopes" {
					t.Errorf("got %d docs, first %+v", len(c.Docs), c.Docs[0])
				}
				return
			}
			if len(c.Docs) != len(tt.want) {
				t.Fatalf("got %d docs %+v, want %+v", len(c.Docs), c.Docs, tt.want)
			}
			for i := range tt.want {
				if !reflect.DeepEqual(c.Docs[i], tt.want[i]) {
					t.Errorf("doc %d = %+v, want %+v", i, c.Docs[i], tt.want[i])
				}
			}
		})
	}
}

func TestLoadCorpusHashChanges(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "c.jsonl")
	hash := func(content string) string {
		os.WriteFile(p, []byte(content), 0o644)
		c, err := corpus.Load(corpus.Config{Path: p, Format: corpus.FormatBEIR})
		if err != nil {
			t.Fatal(err)
		}
		return c.Hash
	}
	a := hash(`{"_id": "a", "text": "one"}`)
	b := hash(`{"_id": "a", "text": "two"}`)
	if a == b || a != hash(`{"_id": "a", "text": "one"}`) {
		t.Errorf("hash must follow content: %s %s", a, b)
	}
}

func TestReadJSONLErrors(t *testing.T) {
	tests := []struct {
		name, input, want string
	}{
		{"broken json", "{\"_id\": \"a\", \"text\": \"x\"}\n{\"_id\": \"b\", \"text\": \"x\n", "corpus.jsonl:2: expected a JSON object"},
		{"missing id", `{"text": "x"}`, `corpus.jsonl:1: missing id field "_id"`},
		{"missing text", `{"_id": "a"}`, `corpus.jsonl:1: missing text field "text"`},
		{"bad text", `{"_id": "a", "text": 3}`, `corpus.jsonl:1: field "text": expected a string`},
		{"bad id", `{"_id": ["a"], "text": "x"}`, `corpus.jsonl:1: field "_id": expected a string or number`},
		{"space in id", `{"_id": "a b", "text": "x"}`, `corpus.jsonl:1: field "_id": id must be non-empty without whitespace`},
		{"duplicate", "{\"_id\": \"a\", \"text\": \"x\"}\n\n{\"_id\": \"a\", \"text\": \"y\"}", `corpus.jsonl:3: duplicate document id "a" (first on line 1)`},
		{"empty", "\n\n", "corpus.jsonl: no documents"},
		{"NUL in id", `{"_id": "a\u0000b", "text": "x"}`, `corpus.jsonl:1: field "_id": id must be non-empty without whitespace or control characters (got "a\x00b")`},
		{"escape in id", `{"_id": "a\u001b[31m", "text": "x"}`, `corpus.jsonl:1: field "_id": id must be non-empty without whitespace or control characters`},
		{"CR in id", `{"_id": "a\r", "text": "x"}`, `corpus.jsonl:1: field "_id": id must be non-empty`},
		{"not UTF-8 in text", "{\"_id\": \"a\", \"text\": \"x\"}\n{\"_id\": \"b\", \"text\": \"caf\xe9\"}\n", "corpus.jsonl:2:26: not valid UTF-8 (byte 0xe9)"},
		{"not UTF-8 in id", "{\"_id\": \"\xff\", \"text\": \"x\"}\n", "corpus.jsonl:1:10: not valid UTF-8 (byte 0xff)"},
		{"byte-order mark after the first line", "{\"_id\": \"a\", \"text\": \"x\"}\n\ufeff{\"_id\": \"b\", \"text\": \"x\"}\n", "corpus.jsonl:2: expected a JSON object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := corpus.ReadJSONL(strings.NewReader(tt.input), "corpus.jsonl", "_id", "title", "text")
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("error %v, want prefix %q", err, tt.want)
			}
		})
	}
}

// TestReadJSONLByteOrderMark reads a corpus that starts with a UTF-8
// byte-order mark as if it were not there.
func TestReadJSONLByteOrderMark(t *testing.T) {
	c, err := corpus.ReadJSONL(strings.NewReader("\ufeff{\"_id\": \"a\", \"text\": \"x\"}\n"), "corpus.jsonl", "_id", "title", "text")
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Docs) != 1 || c.Docs[0].ID != "a" {
		t.Errorf("docs %+v, want one with id \"a\"", c.Docs)
	}
}

func TestLoadCorpusBrokenFile(t *testing.T) {
	_, err := corpus.Load(corpus.Config{Path: "testdata/broken/corpus.jsonl", Format: corpus.FormatBEIR})
	if err == nil || !strings.HasPrefix(err.Error(), "testdata/broken/corpus.jsonl:2: ") {
		t.Errorf("error %v, want it to name testdata/broken/corpus.jsonl:2", err)
	}
}

func FuzzReadJSONL(f *testing.F) {
	f.Add([]byte(`{"_id": "a", "title": "t", "text": "x"}`))
	f.Add([]byte("{\"_id\": 1, \"text\": \"x\"}\n{\"_id\": \"a\"}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := corpus.ReadJSONL(strings.NewReader(string(data)), "f", "_id", "title", "text")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f:") {
				t.Fatalf("error without file name: %v", err)
			}
			return
		}
		seen := map[string]bool{}
		for _, d := range c.Docs {
			if d.ID == "" || seen[d.ID] {
				t.Fatalf("bad or duplicate id %q", d.ID)
			}
			seen[d.ID] = true
		}
	})
}
