package embed_test

import (
	"context"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/backend/embed"
)

func TestFileLookup(t *testing.T) {
	e, err := embed.LoadFile(filepath.Join("testdata", "vectors.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		id   string
		want []float32
	}{
		{"document id", "doc-1", []float32{1, 0, 0}},
		{"chunk id of its own", "doc-2#0", []float32{0, 0.6, 0.8}}, // (0, 3, 4) / 5
		{"chunk falls back to document", "doc-2#7", []float32{0, 0, 1}},
		{"document id with #", "a#b", []float32{0, 1, 0}},
		{"chunk of a document id with #", "a#b#3", []float32{0, 1, 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			vecs, err := e.EmbedDocuments(context.Background(), []string{tt.id}, []string{"text is ignored"})
			if err != nil {
				t.Fatal(err)
			}
			if !close32(vecs[0], tt.want) {
				t.Errorf("got %v, want %v", vecs[0], tt.want)
			}
		})
	}
	q, err := e.EmbedQuery(context.Background(), "what is fusion")
	if err != nil {
		t.Fatal(err)
	}
	if s := float32(1 / math.Sqrt(2)); !close32(q, []float32{s, s, 0}) {
		t.Errorf("query vector %v, want (1, 1, 0)/√2", q)
	}
	q[0] = 42
	if again, _ := e.EmbedQuery(context.Background(), "what is fusion"); again[0] == 42 {
		t.Error("EmbedQuery returned the stored slice, not a copy")
	}

	errTests := []struct {
		name, want string
		run        func() error
	}{
		{"missing chunk and document", `no vector for id "doc-9#1" nor its document "doc-9"`, func() error {
			_, err := e.EmbedDocuments(context.Background(), []string{"doc-1", "doc-9#1"}, []string{"", ""})
			return err
		}},
		{"missing document", `no vector for id "doc-9"`, func() error {
			_, err := e.EmbedDocuments(context.Background(), []string{"doc-9"}, []string{""})
			return err
		}},
		{"missing query", `no vector for query "what is bm25"`, func() error {
			_, err := e.EmbedQuery(context.Background(), "what is bm25")
			return err
		}},
		{"ids and texts differ", "2 ids for 1 texts", func() error {
			_, err := e.EmbedDocuments(context.Background(), []string{"doc-1", "doc-2"}, []string{""})
			return err
		}},
	}
	for _, tt := range errTests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.run(); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

func close32(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Abs(float64(a[i]-b[i])) > 1e-6 {
			return false
		}
	}
	return true
}

func TestParseFileErrors(t *testing.T) {
	tests := []struct {
		name, input, want string
	}{
		{"not json", "{\"id\": \"a\", \"vector\": [1]}\nnope\n", `v.jsonl:2: invalid character 'o'`},
		{"unknown field", `{"id": "a", "vector": [1], "text": "x"}`, `v.jsonl:1: json: unknown field "text"`},
		{"no id nor query", `{"vector": [1, 2]}`, `v.jsonl:1: missing "id" or "query"`},
		{"both id and query", `{"id": "a", "query": "q", "vector": [1]}`, `v.jsonl:1: has both "id" and "query"`},
		{"missing vector", `{"id": "a"}`, `v.jsonl:1: id "a": missing or empty "vector"`},
		{"empty vector", `{"query": "q", "vector": []}`, `v.jsonl:1: query "q": missing or empty "vector"`},
		{"vector not numbers", `{"id": "a", "vector": ["x"]}`, `v.jsonl:1: json: cannot unmarshal string`},
		{"dimension mismatch", "{\"id\": \"a\", \"vector\": [1, 2]}\n\n{\"id\": \"b\", \"vector\": [1, 2, 3]}", `v.jsonl:3: id "b": vector has 3 dimensions, want 2 (as on line 1)`},
		{"repeated id", "{\"id\": \"a\", \"vector\": [1]}\n{\"id\": \"a\", \"vector\": [2]}", `v.jsonl:2: id "a" repeats line 1`},
		{"two values on a line", `{"id": "a", "vector": [1]} {"id": "b", "vector": [1]}`, `v.jsonl:1: more than one JSON value`},
		{"empty file", "\n\n", `v.jsonl: no vectors`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := embed.ParseFile(strings.NewReader(tt.input), "v.jsonl")
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

func FuzzParseFile(f *testing.F) {
	f.Add([]byte("{\"id\": \"a\", \"vector\": [1, 2]}\n{\"query\": \"q\", \"vector\": [3, 4]}\n"))
	f.Add([]byte("{\"id\": \"a#1\", \"vector\": [0]}"))
	f.Add([]byte("\n{}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		e, err := embed.ParseFile(strings.NewReader(string(data)), "fuzz.jsonl")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "embed: fuzz.jsonl") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		if e.Dim() < 1 {
			t.Fatalf("accepted a file with dimension %d", e.Dim())
		}
	})
}
