package weaviatetest

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"testing"

	"github.com/fusiontune/fusiontune/backend/corpus"
	"github.com/fusiontune/fusiontune/backend/embed"
	"github.com/fusiontune/fusiontune/backend/weaviate"
)

// UserClass is the attach-mode fixture (backend/weaviate/testdata/attach,
// a BEIR folder with vectors.jsonl of precomputed hash-32 document
// vectors and query-vectors.jsonl of its queries' vectors): the class a
// user builds and loads without the kind.
type UserClass struct {
	// Name is the class, IDProperty its document-id property.
	Name, IDProperty string
	// Objects is the number of objects loaded.
	Objects int
}

// LoadUserClass creates, as a user would, the class Papers (paper_id,
// body, vectorizer none) on the server s and loads dir's corpus with the
// vectors of dir/vectors.jsonl, then restarts s with depth maxResults to
// flush the import, as a server that has run a while.
func LoadUserClass(tb testing.TB, s *weaviate.Server, dir string, maxResults int) UserClass {
	tb.Helper()
	u := UserClass{Name: "Papers", IDProperty: "paper_id"}
	Post(tb, s.URL+"/v1/schema", map[string]any{
		"class": u.Name, "vectorizer": "none", "vectorIndexConfig": map[string]any{"distance": "cosine"},
		"properties": []map[string]any{
			{"name": u.IDProperty, "dataType": []string{"text"}, "tokenization": "field", "indexSearchable": false},
			{"name": "body", "dataType": []string{"text"}, "tokenization": "word"},
		},
	})
	c, err := corpus.Load(corpus.Config{Path: filepath.Join(dir, "corpus.jsonl")})
	if err != nil {
		tb.Fatal(err)
	}
	vecs, err := embed.LoadFile(filepath.Join(dir, "vectors.jsonl"))
	if err != nil {
		tb.Fatal(err)
	}
	var objs []map[string]any
	for _, d := range c.Docs {
		v, err := vecs.EmbedDocuments(context.Background(), []string{d.ID}, []string{""})
		if err != nil {
			tb.Fatal(err)
		}
		objs = append(objs, map[string]any{"class": u.Name, "properties": map[string]any{u.IDProperty: d.ID, "body": d.Text}, "vector": v[0]})
	}
	Post(tb, s.URL+"/v1/batch/objects", map[string]any{"objects": objs})
	u.Objects = len(objs)
	if err := s.Restart(context.Background(), maxResults); err != nil {
		tb.Fatal(err)
	}
	return u
}

// Post sends body as JSON to url and returns the answer; a status other
// than 2xx fails tb.
func Post(tb testing.TB, url string, body any) []byte {
	tb.Helper()
	return send(tb, http.MethodPost, url, body)
}

// Get returns the answer to GET url; a status other than 2xx fails tb.
func Get(tb testing.TB, url string) []byte {
	tb.Helper()
	return send(tb, http.MethodGet, url, nil)
}

func send(tb testing.TB, method, url string, body any) []byte {
	tb.Helper()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			tb.Fatal(err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		tb.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	if resp.StatusCode/100 != 2 {
		tb.Fatalf("%s %s: %d %s", method, url, resp.StatusCode, out)
	}
	return out
}
