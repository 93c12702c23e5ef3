package engine_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/fusiontune/fusiontune/backend/engine"
)

// FuzzSearchRequest feeds arbitrary bodies to POST /search: the answer is
// always 200 or 400 with a JSON body, never a crash or a 500.
func FuzzSearchRequest(f *testing.F) {
	e := build(f, tinyConfig(f, nil))
	srv := engine.NewServer(e, engine.ServerOptions{})
	for _, s := range []string{
		`{"query": "bread", "k": 3}`,
		`{"query": "bread", "explain": true, "fusion": {"method": "linear", "weights": {"dense": 0.5}, "normalization": "z_score", "depth": 5}}`,
		`{"query": 3}`, `{"query": "x", "k": -1}`, `[]`, `{"query": "x"}{}`, ``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		req, err := http.NewRequest(http.MethodPost, "/search", bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		rec := newRecorder()
		srv.ServeHTTP(rec, req)
		if rec.status != 200 && rec.status != 400 {
			t.Fatalf("status %d for %q: %s", rec.status, body, rec.body.String())
		}
		if !json.Valid([]byte(rec.body.String())) {
			t.Fatalf("response is not JSON: %q", rec.body.String())
		}
	})
}
