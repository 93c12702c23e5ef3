package external_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/backend/external"
	"github.com/fusiontune/fusiontune/backend/httpbackend"
)

// TestReadOnlyHTTP: an http backend without config, template and restart
// is only searched: the trial's parameters reach the request body through
// .params (query-time settings swept without touching the service), the
// first Apply waits for the health URL, Restart sends nothing, promotion
// is refused.
func TestReadOnlyHTTP(t *testing.T) {
	var mu sync.Mutex
	var bodies []string
	paths := map[string]int{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		data, _ := io.ReadAll(r.Body)
		mu.Lock()
		paths[r.URL.Path]++
		if r.URL.Path == "/search" {
			bodies = append(bodies, string(data))
		}
		mu.Unlock()
		json.NewEncoder(w).Encode(map[string]any{"hits": []map[string]any{{"id": "d1", "score": 1, "text": "the first"}}})
	}))
	defer srv.Close()
	o := external.Options{Kind: external.KindHTTP, Search: httpbackend.SearchOptions{
		URL: srv.URL + "/search", HealthURL: srv.URL + "/healthz",
		Body:     `{"q": {{ .query }}, "k": {{ .k }}, "rrf_k": {{ param "params.fusion.k" 60 }}}`,
		Response: httpbackend.Response{Hits: "hits", ID: "id", Score: "score", Text: "text"},
	}}
	if !o.ReadOnly() {
		t.Fatal("options without config, template and restart are not read-only")
	}
	f, err := external.New(o)
	if err != nil {
		t.Fatal(err)
	}
	params := map[string]any{"fusion.k": 40}
	if err := f.Check(params); err != nil {
		t.Fatal(err)
	}
	if d := f.Describe(params); !strings.Contains(d, "read-only") || !strings.Contains(d, `{"fusion.k":40}`) {
		t.Errorf("describe = %q", d)
	}
	b, err := f.Open(t.TempDir(), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := b.Apply(ctx, params); err != nil {
		t.Fatal(err)
	}
	if r, ok := b.(backend.Restarter); !ok || r.NeedsRestart() {
		t.Error("a read-only backend asks for a restart")
	}
	if err := b.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	resp, err := b.Search(ctx, backend.SearchRequest{Query: "boiler", K: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Hits) != 1 || resp.Hits[0].Text != "the first" {
		t.Errorf("hits = %+v", resp.Hits)
	}
	// A trial without the parameter: the template's default.
	if err := b.Apply(ctx, map[string]any{}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Search(ctx, backend.SearchRequest{Query: "boiler", K: 3}); err != nil {
		t.Fatal(err)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(bodies) != 2 || bodies[0] != `{"q": "boiler", "k": 3, "rrf_k": 40}` || bodies[1] != `{"q": "boiler", "k": 3, "rrf_k": 60}` {
		t.Errorf("request bodies = %q", bodies)
	}
	if paths["/healthz"] != 1 || len(paths) != 2 {
		t.Errorf("requests by path = %v, want one health probe and the search only", paths)
	}
	if _, err := f.Verify("prod.yaml", t.TempDir(), io.Discard, nil); !errors.Is(err, external.ErrReadOnly) {
		t.Errorf("promotion on a read-only backend: err = %v", err)
	}
}
