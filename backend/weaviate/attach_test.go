package weaviate_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/backend/embed"
	"github.com/fusiontune/fusiontune/backend/fusion"
	"github.com/fusiontune/fusiontune/backend/weaviate"
	"github.com/fusiontune/fusiontune/backend/weaviate/weaviatetest"
)

// queryTexts reads testdata/attach/queries.jsonl.
func queryTexts(t *testing.T) []string {
	t.Helper()
	data, err := os.ReadFile("testdata/attach/queries.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var q struct {
			Text string `json:"text"`
		}
		if err := json.Unmarshal([]byte(line), &q); err != nil {
			t.Fatal(err)
		}
		out = append(out, q.Text)
	}
	return out
}

// TestAttach is attach mode against a real server: a class the user
// built with vectors the kind did not compute, attached read-only with
// query vectors from an OpenAI-compatible endpoint (tune embed's handler
// on loopback) and from a file of precomputed query vectors; a sweep of
// alpha x fusionType where, for 20 queries, Weaviate's own hybrid answer
// equals the replay of the legs collected at the server's depth; the
// promotion's file, verified on the server, and its rollback; and the
// class left exactly as it was.
func TestAttach(t *testing.T) {
	const depth = 50
	s := weaviatetest.StartWith(t, weaviate.ServerOptions{MaxResults: depth, Env: []string{"USE_INVERTED_SEARCHABLE=true"}})
	weaviatetest.LoadUserClass(t, s, "testdata/attach", depth)
	schemaBefore := weaviatetest.Get(t, s.URL+"/v1/schema/Papers")
	queries := queryTexts(t)
	ctx := context.Background()

	hash, err := embed.New("hash-32", embed.Options{})
	if err != nil {
		t.Fatal(err)
	}
	openai := httptest.NewServer(embed.Handler(map[string]embed.Embedder{"hash-32": hash}))
	defer openai.Close()
	abs, err := filepath.Abs("testdata/attach/query-vectors.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	for _, qv := range []struct {
		name string
		spec string
		opts embed.Options
	}{
		{"openai endpoint", "openai:hash-32", embed.Options{BaseURL: openai.URL}},
		{"query vector file", "file:" + abs, embed.Options{}},
	} {
		t.Run(qv.name, func(t *testing.T) {
			f, err := weaviate.New(weaviate.Options{URL: s.URL, MaxResults: depth, Class: "Papers", IDProperty: "paper_id", QueryVectors: qv.spec, Embed: qv.opts})
			if err != nil {
				t.Fatal(err)
			}
			b, err := f.Open(t.TempDir(), nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, alpha := range []float64{0, 0.25, 0.5, 0.8, 1} {
				for _, ft := range []string{"rankedFusion", "relativeScoreFusion"} {
					params := map[string]any{"alpha": alpha, "fusionType": ft}
					if err := f.Check(params); err != nil {
						t.Fatal(err)
					}
					if err := b.Apply(ctx, params); err != nil {
						t.Fatal(err)
					}
					tr, _ := weaviate.Translate(params)
					for _, q := range queries {
						resp, err := b.Search(ctx, backend.SearchRequest{Query: q, K: 10, Explain: true})
						if err != nil {
							t.Fatal(err)
						}
						if n := len(resp.Candidates["bm25"]); n > depth {
							t.Fatalf("BM25 leg of %d hits at depth %d", n, depth)
						}
						replay := weaviate.Replay(resp.Candidates, tr, 10)
						if len(replay) != len(resp.Hits) {
							t.Fatalf("alpha %v %s %q: %d live hits, %d replayed", alpha, ft, q, len(resp.Hits), len(replay))
						}
						for i, h := range resp.Hits {
							if h.DocID != replay[i].DocID || h.Score != replay[i].Score {
								t.Fatalf("alpha %v %s %q hit %d: live %s %.9g, replayed %s %.9g", alpha, ft, q, i, h.DocID, h.Score, replay[i].DocID, replay[i].Score)
							}
						}
					}
				}
			}
			// Variants: alpha and fusionType per request, each answered as
			// its own hybrid query would be.
			variants := []fusion.Params{{Method: fusion.RRF, Weights: map[string]float64{"bm25": 0.5, "dense": 0.5}}, {Method: fusion.Linear, Weights: map[string]float64{"bm25": 0.9, "dense": 0.1}}}
			resp, err := b.Search(ctx, backend.SearchRequest{Query: queries[1], K: 10, Variants: variants})
			if err != nil {
				t.Fatal(err)
			}
			for i, v := range variants {
				tr, _ := weaviate.TrialOf(weaviate.Trial{MaxResults: depth}, &v)
				alone, err := b.Search(ctx, backend.SearchRequest{Query: queries[1], K: 10, Fusion: &fusion.Params{Method: v.Method, Weights: v.Weights}})
				if err != nil {
					t.Fatal(err)
				}
				if len(resp.Variants) != 2 || !reflect.DeepEqual(resp.Variants[i].Hits, alone.Hits) {
					t.Errorf("variant %d (alpha %v, %s): %v, alone %v", i, tr.Alpha, tr.FusionType, resp.Variants, alone.Hits)
				}
			}
			for _, bad := range []struct {
				params map[string]any
				want   string
			}{
				{map[string]any{"bm25.k1": 1.5}, "bm25.k1: the class's BM25 k1 is the user's schema setting"},
				{map[string]any{"depth": 80}, "QUERY_HYBRID_MAXIMUM_RESULTS=50"},
				{map[string]any{"dense.model": "lsa-64"}, "query_vectors"},
			} {
				if err := f.Check(bad.params); err == nil || !strings.Contains(err.Error(), bad.want) {
					t.Errorf("Check(%v) = %v, want %q", bad.params, err, bad.want)
				}
			}
			if err := b.Close(); err != nil {
				t.Fatal(err)
			}

			// Promotion: the recorded trial's production file, checked on the
			// server as the application queries; rollback past the first
			// promotion installs nothing.
			params := map[string]any{"alpha": 0.25, "fusionType": "rankedFusion"}
			prod, err := weaviate.ProductionFile([]byte(f.Describe(params)), "")
			if err != nil {
				t.Fatal(err)
			}
			var a weaviate.Attached
			if err := json.Unmarshal(prod, &a); err != nil {
				t.Fatal(err)
			}
			wantQL := `{ Get { Papers(hybrid: {query: $query, vector: $vector, alpha: 0.25, fusionType: rankedFusion}, limit: 10) { paper_id _additional { score } } } }`
			if a.Class != "Papers" || a.Alpha != 0.25 || a.FusionType != "rankedFusion" || a.MaxResults != depth || a.QueryVectors != qv.spec || a.GraphQL != wantQL {
				t.Fatalf("production file:\n%s", prod)
			}
			config := filepath.Join(t.TempDir(), "weaviate.json")
			if err := os.WriteFile(config, prod, 0o644); err != nil {
				t.Fatal(err)
			}
			checked := 0
			install, err := f.Verify(config, t.TempDir(), nil, func(ctx context.Context, sr backend.Searcher) error {
				resp, err := sr.Search(ctx, backend.SearchRequest{Query: queries[0], K: 5})
				if err != nil {
					return err
				}
				vec, err := hash.EmbedQuery(ctx, queries[0])
				if err != nil {
					return err
				}
				c := weaviate.NewClient(s.URL)
				c.IDProperty = "paper_id"
				want, err := c.Hybrid(ctx, weaviate.HybridQuery{Class: "Papers", Query: queries[0], Vector: vec, Alpha: 0.25, FusionType: "rankedFusion", Limit: 5})
				if err != nil {
					return err
				}
				for i := range want {
					if resp.Hits[i].DocID != want[i].DocID {
						t.Errorf("promoted hit %d: %s, the application's query gives %s", i, resp.Hits[i].DocID, want[i].DocID)
					}
				}
				checked++
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if err := install(ctx); err != nil || checked != 1 {
				t.Fatalf("promotion: %v (%d checks)", err, checked)
			}
			if err := os.Remove(config); err != nil { // rollback of a first promotion
				t.Fatal(err)
			}
			if err := install(ctx); err != nil {
				t.Fatalf("rollback: %v", err)
			}
		})
	}
	for _, bad := range []struct {
		o    weaviate.Options
		want string
	}{
		{weaviate.Options{URL: s.URL, Class: "Papers", IDProperty: "paper_id"}, "class Papers has no vectorizer to embed query texts: set backend.weaviate.query_vectors"},
		{weaviate.Options{URL: s.URL, Class: "Papers", QueryVectors: "hash-32"}, `class Papers has no property "doc_id" holding the document id (its properties: paper_id, body; set backend.weaviate.id_property)`},
		{weaviate.Options{URL: s.URL, Class: "Missing", QueryVectors: "hash-32"}, "class Missing on " + s.URL},
	} {
		f, err := weaviate.New(bad.o)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.Open(t.TempDir(), nil); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("Open(%+v) = %v, want %q", bad.o, err, bad.want)
		}
	}
	if after := weaviatetest.Get(t, s.URL+"/v1/schema/Papers"); !bytes.Equal(after, schemaBefore) {
		t.Errorf("the attached class changed:\nbefore %s\nafter  %s", schemaBefore, after)
	}
	if n, err := weaviate.NewClient(s.URL).Count(ctx, "Papers"); err != nil || n != 300 {
		t.Errorf("the attached class holds %d objects (%v), want 300", n, err)
	}
}

// TestAttachOptions checks attach mode's options and trials without a
// server: every problem named at once, index-time settings refused.
func TestAttachOptions(t *testing.T) {
	for _, c := range []struct {
		name string
		o    weaviate.Options
		want []string
	}{
		{"bin", weaviate.Options{Bin: "/bin/weaviate-server", Class: "Papers"}, []string{"class: attach mode needs url"}},
		{"name", weaviate.Options{URL: "http://x", Class: "papers", Model: "lsa-64"}, []string{`class: want a GraphQL class name, capitalized (got "papers")`, "model: not with class"}},
		{"query vectors", weaviate.Options{URL: "http://x", Class: "Papers", QueryVectors: "word2vec"}, []string{`query_vectors: want openai:<model>, file:<path>, lsa-<dim> or hash-<dim> (got "word2vec")`}},
		{"lsa without corpus", weaviate.Options{URL: "http://x", Class: "Papers", QueryVectors: "lsa-64"}, []string{"query_vectors: lsa-64 is fitted on the corpus the class was embedded from: set corpus"}},
		{"depth", weaviate.Options{URL: "http://x", Class: "Papers", MaxResults: -1}, []string{"max_results: want 0 to 10000 (got -1)"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := weaviate.New(c.o)
			if err == nil {
				t.Fatal("accepted")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
	f, err := weaviate.New(weaviate.Options{URL: "http://x", Class: "Papers", QueryVectors: "hash-32", MaxResults: 50})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		params map[string]any
		want   string // "" accepted
	}{
		{map[string]any{"alpha": 0.3, "fusionType": "rankedFusion"}, ""},
		{map[string]any{"depth": 50}, ""},
		{map[string]any{"fusion.method": "rrf", "fusion.weights.dense": 2}, ""},
		{map[string]any{"depth": 100}, "depth: the server at http://x runs with QUERY_HYBRID_MAXIMUM_RESULTS=50"},
		{map[string]any{"bm25.b": 0.5, "chunk.size": 0}, "bm25.b: the class's BM25 b is the user's schema setting, which attach mode never changes; chunk.size: the class's objects are the user's"},
		{map[string]any{"alpha": 2}, "alpha: want a number from 0 to 1 (got 2)"},
	} {
		err := f.Check(c.params)
		if (c.want == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), c.want) {
			t.Errorf("Check(%v) = %v, want %q", c.params, err, c.want)
		}
	}
	fs, err := f.Fusion(map[string]any{"alpha": 0.3})
	if err != nil || fs.Fusion.Depth != 50 {
		t.Errorf("Fusion: depth %d (%v), want the server's 50", fs.Fusion.Depth, err)
	}
}
