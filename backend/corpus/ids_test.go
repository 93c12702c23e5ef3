package corpus_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/backend/corpus"
)

// TestLoadCorpusIDsEqualsLoadCorpus: reading a corpus's ids only accepts
// the lines Load accepts, with the same ids in the same order, and
// refuses the others with Load's error: escaped titles and texts
// (left undecoded, on the fast path), lines only the general path reads
// (non-string members, null titles), malformed lines of every kind, and
// a folder corpus (read whole).
func TestLoadCorpusIDsEqualsLoadCorpus(t *testing.T) {
	dir := t.TempDir()
	notes := filepath.Join(dir, "notes")
	os.MkdirAll(notes, 0o755)
	os.WriteFile(filepath.Join(notes, "b.md"), []byte("# B\nbee text"), 0o644)
	inputs := map[string]string{
		"plain":           "{\"_id\": \"a\", \"title\": \"t\", \"text\": \"x\"}\n{\"_id\": \"b\", \"text\": \"y\"}\n",
		"escapes":         `{"_id": "a", "title": "say \"hi\"", "text": "caf\u00e9 \ud800 tab\t and \\ slash\/"}` + "\n" + `{"_id": "b\u0041", "text": "\n"}`,
		"general path":    `{"_id": 7, "title": null, "text": "x", "extra": {"n": [1, 2]}}` + "\n" + `{"text": "y", "_id": "z", "score": 1.5}`,
		"number title":    `{"_id": "a", "title": 3, "text": "x"}`,
		"broken json":     "{\"_id\": \"a\", \"text\": \"x\"}\n{\"_id\": \"b\", \"text\": \"x\n",
		"bad escape":      `{"_id": "a", "text": "bad \q escape"}`,
		"missing id":      `{"text": "x"}`,
		"missing text":    `{"_id": "a"}`,
		"bad text":        `{"_id": "a", "text": 3}`,
		"bad id":          `{"_id": ["a"], "text": "x"}`,
		"space in id":     `{"_id": "a b", "text": "x"}`,
		"duplicate":       "{\"_id\": \"a\", \"text\": \"x\"}\n\n{\"_id\": \"a\", \"text\": \"y\"}",
		"empty":           "\n\n",
		"not UTF-8":       "{\"_id\": \"a\", \"text\": \"x\"}\n{\"_id\": \"b\", \"text\": \"caf\xe9\"}\n",
		"byte-order mark": "\ufeff{\"_id\": \"a\", \"text\": \"x\"}\n",
		"control in text": "{\"_id\": \"a\", \"text\": \"x\x01y\"}",
	}
	configs := map[string]corpus.Config{"dir": {Path: notes, Format: corpus.FormatDir}}
	for name, in := range inputs {
		path := filepath.Join(dir, name+".jsonl")
		if err := os.WriteFile(path, []byte(in), 0o644); err != nil {
			t.Fatal(err)
		}
		configs[name] = corpus.Config{Path: path, Format: corpus.FormatBEIR}
	}
	for name, cfg := range configs {
		t.Run(name, func(t *testing.T) {
			full, ferr := corpus.Load(cfg)
			ids, ierr := corpus.LoadIDs(cfg)
			if (ferr == nil) != (ierr == nil) || ferr != nil && ferr.Error() != ierr.Error() {
				t.Fatalf("ids only: error %v, Load %v", ierr, ferr)
			}
			if ferr != nil {
				return
			}
			want := make([]string, len(full.Docs))
			for i, d := range full.Docs {
				want[i] = d.ID
			}
			got := make([]string, len(ids.Docs))
			for i, d := range ids.Docs {
				got[i] = d.ID
				if cfg.Format != corpus.FormatDir && (d.Text != "" || d.Title != "") {
					t.Errorf("document %q: ids only kept its title or text", d.ID)
				}
			}
			if !slices.Equal(got, want) {
				t.Errorf("ids %q, Load %q", got, want)
			}
		})
	}
}

// TestReadJSONLLongLines: lines longer than the reader's 1 MB buffer
// (read without a copy per line otherwise) are read whole, between and
// after short ones, with their texts intact.
func TestReadJSONLLongLines(t *testing.T) {
	long := strings.Repeat("abc ", 700_000) // 2.8 MB
	in := `{"_id": "a", "text": "short"}` + "\n" + `{"_id": "b", "text": "` + long + `"}` + "\n" + `{"_id": "c", "text": "` + long + `x"}`
	c, err := corpus.ReadJSONL(strings.NewReader(in), "corpus.jsonl", "_id", "title", "text")
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Docs) != 3 || c.Docs[0].Text != "short" || c.Docs[1].Text != long || c.Docs[2].Text != long+"x" {
		t.Errorf("%d documents read, texts not as written", len(c.Docs))
	}
}
