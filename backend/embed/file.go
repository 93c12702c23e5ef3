package embed

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/fusiontune/fusiontune/internal/userfile"
)

// File is the file:<path> embedder: precomputed vectors read from a JSONL
// file, one object per line (blank lines are skipped):
//
//	{"id": "doc-1", "vector": [0.1, 0.2]}          a document or chunk vector
//	{"query": "what is x", "vector": [0.3, 0.1]}    a query vector
//
// Each line has exactly one of "id" and "query" and a non-empty "vector";
// other fields are errors, as are a repeated id or query and vectors of
// different lengths. EmbedDocuments looks each id up first as given (a
// chunk id), then as the document id: the part before the last '#' (chunk
// ids are "<doc id>#<n>"). EmbedQuery looks the query text up exactly.
// Vectors are L2-normalized on load; lookups return copies. Safe for
// concurrent use.
type File struct {
	path    string
	dim     int
	docs    map[string][]float32
	queries map[string][]float32
}

var _ Embedder = (*File)(nil)

// LoadFile reads and checks the vectors file at path.
func LoadFile(path string) (*File, error) {
	f, err := userfile.Open(path)
	if err != nil {
		return nil, fmt.Errorf("embed: file: %w", err)
	}
	defer f.Close()
	return ParseFile(f, path)
}

type fileLine struct {
	ID     *string   `json:"id"`
	Query  *string   `json:"query"`
	Vector []float32 `json:"vector"`
}

// ParseFile reads vectors in the file:<path> format from r; name (the
// path) prefixes errors as "name:line: problem".
func ParseFile(r io.Reader, name string) (*File, error) {
	e := &File{path: name, docs: make(map[string][]float32), queries: make(map[string][]float32)}
	seen := make(map[string]int) // "id\x00x" or "query\x00x" -> line
	dimLine := 0
	br := bufio.NewReader(r)
	for line := 1; ; line++ {
		raw, err := br.ReadBytes('\n')
		if len(bytes.TrimSpace(raw)) > 0 {
			if perr := e.parseLine(raw, line, seen, &dimLine); perr != nil {
				return nil, perr
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("embed: %s:%d: %w", name, line, err)
		}
	}
	if e.dim == 0 {
		return nil, fmt.Errorf("embed: %s: no vectors (want JSONL lines like {\"id\": ..., \"vector\": [...]})", name)
	}
	return e, nil
}

func (e *File) parseLine(raw []byte, line int, seen map[string]int, dimLine *int) error {
	at := fmt.Sprintf("%s:%d", e.path, line)
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	var l fileLine
	if err := dec.Decode(&l); err != nil {
		return fmt.Errorf("embed: %s: %w (want {\"id\" or \"query\": string, \"vector\": [numbers]})", at, err)
	}
	if dec.More() {
		return fmt.Errorf("embed: %s: more than one JSON value on the line", at)
	}
	var key, what string
	var store map[string][]float32
	switch {
	case l.ID != nil && l.Query != nil:
		return fmt.Errorf("embed: %s: has both \"id\" and \"query\" (want one)", at)
	case l.ID != nil:
		key, what, store = *l.ID, "id", e.docs
	case l.Query != nil:
		key, what, store = *l.Query, "query", e.queries
	default:
		return fmt.Errorf("embed: %s: missing \"id\" or \"query\"", at)
	}
	if len(l.Vector) == 0 {
		return fmt.Errorf("embed: %s: %s %q: missing or empty \"vector\"", at, what, key)
	}
	if prev, ok := seen[what+"\x00"+key]; ok {
		return fmt.Errorf("embed: %s: %s %q repeats line %d", at, what, key, prev)
	}
	if e.dim == 0 {
		e.dim, *dimLine = len(l.Vector), line
	} else if len(l.Vector) != e.dim {
		return fmt.Errorf("embed: %s: %s %q: vector has %d dimensions, want %d (as on line %d)", at, what, key, len(l.Vector), e.dim, *dimLine)
	}
	seen[what+"\x00"+key] = line
	store[key] = Normalize(l.Vector)
	return nil
}

// Name returns "file:<path>".
func (e *File) Name() string { return "file:" + e.path }

// Dim returns the vector length.
func (e *File) Dim() int { return e.dim }

// EmbedDocuments returns the vector of each id (see File); texts are not
// used but must match ids in number.
func (e *File) EmbedDocuments(ctx context.Context, ids, texts []string) ([][]float32, error) {
	if len(ids) != len(texts) {
		return nil, fmt.Errorf("embed: %s: %d ids for %d texts", e.Name(), len(ids), len(texts))
	}
	out := make([][]float32, len(ids))
	for i, id := range ids {
		v, ok := e.docs[id]
		doc := id
		if !ok {
			if j := strings.LastIndexByte(id, '#'); j >= 0 {
				doc = id[:j]
				v, ok = e.docs[doc]
			}
		}
		if !ok {
			if doc != id {
				return nil, fmt.Errorf("embed: %s: no vector for id %q nor its document %q", e.Name(), id, doc)
			}
			return nil, fmt.Errorf("embed: %s: no vector for id %q", e.Name(), id)
		}
		out[i] = append([]float32(nil), v...)
	}
	return out, nil
}

// EmbedQuery returns the vector recorded for exactly this query text.
func (e *File) EmbedQuery(ctx context.Context, text string) ([]float32, error) {
	v, ok := e.queries[text]
	if !ok {
		return nil, fmt.Errorf("embed: %s: no vector for query %q (add a {\"query\": ..., \"vector\": [...]} line)", e.Name(), text)
	}
	return append([]float32(nil), v...), nil
}
