package backendtest

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/backend/fusion"
)

// Options adapt the suite to a searcher.
type Options struct {
	// Queries are searched by every check; at least one must return hits.
	// Default: DefaultQueries, written for the engine's fixture corpus
	// (backend/engine/testdata/tiny).
	Queries []string
	// Passage says the searcher ranks chunks (no collapse to documents), so
	// a document may appear more than once.
	Passage bool
	// Retrievers names the retrievers whose weights the explain check
	// varies; default "bm25" and "dense".
	Retrievers []string
	// ReadyTimeout bounds the wait for Ready; default 60s.
	ReadyTimeout time.Duration
}

// DefaultQueries suit the fixture corpus of backend/engine/testdata/tiny;
// the last one is off-topic.
var DefaultQueries = []string{
	"telescope mirror distant galaxies",
	"why does bread rise with yeast",
	"garbage collector heap in Go",
	"keeping soil moist in the garden",
	"quantum chromodynamics lattice gauge theory",
}

// Run runs the contract suite with default Options. newSearcher is called
// once per subtest; it must return a searcher that becomes ready, applies
// no score thresholds (min_score) and honours per-request fusion settings.
func Run(t *testing.T, newSearcher func(t *testing.T) backend.Searcher) {
	RunWith(t, newSearcher, Options{})
}

// RunWith runs the contract suite with o.
func RunWith(t *testing.T, newSearcher func(t *testing.T) backend.Searcher, o Options) {
	if len(o.Queries) == 0 {
		o.Queries = DefaultQueries
	}
	if len(o.Retrievers) == 0 {
		o.Retrievers = []string{"bm25", "dense"}
	}
	if o.ReadyTimeout == 0 {
		o.ReadyTimeout = 60 * time.Second
	}
	ready := func(t *testing.T) backend.Searcher {
		t.Helper()
		s := newSearcher(t)
		ctx, cancel := context.WithTimeout(context.Background(), o.ReadyTimeout)
		defer cancel()
		if err := s.Ready(ctx); err != nil {
			t.Fatalf("Ready: %v", err)
		}
		return s
	}
	t.Run("health", func(t *testing.T) { ready(t) })
	t.Run("shape", func(t *testing.T) { testShape(t, ready(t), o) })
	t.Run("explain", func(t *testing.T) { testExplain(t, ready(t), o) })
	t.Run("determinism", func(t *testing.T) { testDeterminism(t, ready(t), o) })
	t.Run("invalid", func(t *testing.T) { testInvalid(t, ready(t)) })
}

func search(t *testing.T, s backend.Searcher, req backend.SearchRequest) backend.SearchResponse {
	t.Helper()
	resp, err := s.Search(context.Background(), req)
	if err != nil {
		t.Fatalf("Search(%+v): %v", req, err)
	}
	return resp
}

// checkHits checks k, order (score descending, ties by document id
// descending, then chunk id descending: the fusion tie rule, trec_eval's
// order of tied scores) and, in document mode, unique documents.
func checkHits(t *testing.T, q string, k int, hits []backend.Hit, passage bool) {
	t.Helper()
	if len(hits) > k {
		t.Errorf("query %q k %d: %d hits", q, k, len(hits))
	}
	seen := map[string]bool{}
	for i, h := range hits {
		if h.DocID == "" {
			t.Errorf("query %q hit %d: empty doc_id", q, i)
		}
		id := h.DocID
		if passage {
			id = h.ChunkID
		}
		if seen[id] {
			t.Errorf("query %q: %q ranked twice", q, id)
		}
		seen[id] = true
		if i == 0 {
			continue
		}
		p := hits[i-1]
		pid := p.DocID
		if passage {
			pid = p.ChunkID
		}
		tieOK := p.DocID > h.DocID || p.DocID == h.DocID && pid > id
		if p.Score < h.Score || (p.Score == h.Score && !tieOK) {
			t.Errorf("query %q: hit %d (%q %v) ranked after hit %d (%q %v): want score descending, ties by id descending", q, i, id, h.Score, i-1, pid, p.Score)
		}
	}
}

func testShape(t *testing.T, s backend.Searcher, o Options) {
	total := 0
	for _, q := range o.Queries {
		for _, k := range []int{1, 3, 10} {
			resp := search(t, s, backend.SearchRequest{Query: q, K: k})
			checkHits(t, q, k, resp.Hits, o.Passage)
			if resp.Routing != "" && resp.Routing != "search" && resp.Routing != "no_results" {
				t.Errorf("query %q: routing %q", q, resp.Routing)
			}
			if (resp.Routing == "no_results") != (len(resp.Hits) == 0) && resp.Routing != "" {
				t.Errorf("query %q: routing %q with %d hits", q, resp.Routing, len(resp.Hits))
			}
			if k == 10 && len(resp.Hits) > 3 {
				full := search(t, s, backend.SearchRequest{Query: q, K: 3})
				for i := range full.Hits {
					if full.Hits[i] != resp.Hits[i] {
						t.Errorf("query %q: k=3 hit %d %+v differs from k=10 hit %+v", q, i, full.Hits[i], resp.Hits[i])
					}
				}
			}
			total += len(resp.Hits)
		}
	}
	if total == 0 {
		t.Errorf("no query returned any hit: the suite would prove nothing")
	}
}

// explainParams are the fusion settings the explain check sends.
func explainParams(retrievers []string) []fusion.Params {
	w := map[string]float64{}
	for i, r := range retrievers {
		w[r] = 0.25 + 0.5*float64(i)
	}
	return []fusion.Params{
		{Method: fusion.RRF, K: 60, Depth: 20},
		{Method: fusion.RRF, K: 5, Depth: 8, Weights: w},
		{Method: fusion.Linear, Normalization: fusion.MinMax, Depth: 20, Weights: w},
		{Method: fusion.CombMNZ, Normalization: fusion.ZScore, Depth: 10},
	}
}

func testExplain(t *testing.T, s backend.Searcher, o Options) {
	checked := 0
	for _, q := range o.Queries {
		for _, p := range explainParams(o.Retrievers) {
			p := p
			resp := search(t, s, backend.SearchRequest{Query: q, K: 10, Explain: true, Fusion: &p})
			if len(resp.Candidates) == 0 {
				if len(resp.Hits) > 0 {
					t.Errorf("query %q: %d hits but no candidate lists with explain", q, len(resp.Hits))
				}
				continue
			}
			for name, list := range resp.Candidates {
				if len(list) > p.Depth {
					t.Errorf("query %q %s: %d candidates over depth %d", q, name, len(list), p.Depth)
				}
				for i, c := range list {
					if c.Rank != i+1 {
						t.Errorf("query %q %s: candidate %d has rank %d", q, name, i, c.Rank)
					}
					if i > 0 && list[i-1].Score < c.Score {
						t.Errorf("query %q %s: candidate %d scores above its predecessor", q, name, i)
					}
				}
			}
			want := fusion.Fuse(resp.Candidates, p, o.Passage)
			n := min(10, len(want))
			if len(resp.Hits) != n {
				t.Errorf("query %q %+v: %d hits, re-fusing the explained lists gives %d", q, p, len(resp.Hits), n)
				continue
			}
			for i := range n {
				h, w := resp.Hits[i], want[i]
				id := h.DocID
				if o.Passage {
					id = h.ChunkID
				}
				if id != w.ID || h.DocID != w.DocID || h.Score != w.Score {
					t.Errorf("query %q %+v hit %d: got %s %v, re-fusion gives %s %v", q, p, i, id, h.Score, w.ID, w.Score)
				}
			}
			checked += n
		}
	}
	if checked == 0 {
		t.Errorf("no hit was checked against re-fusion")
	}
}

func testDeterminism(t *testing.T, s backend.Searcher, o Options) {
	for _, q := range o.Queries {
		req := backend.SearchRequest{Query: q, K: 20, Explain: true}
		a, err := json.Marshal(search(t, s, req))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(search(t, s, req))
		if string(a) != string(b) {
			t.Errorf("query %q: two searches differ:\n%s\n%s", q, a, b)
		}
	}
}

func testInvalid(t *testing.T, s backend.Searcher) {
	bad := []backend.SearchRequest{
		{Query: ""},
		{Query: "bread", K: -1},
		{Query: "bread", Fusion: &fusion.Params{Method: "borda"}},
		{Query: "bread", Fusion: &fusion.Params{K: -5}},
	}
	for _, req := range bad {
		if _, err := s.Search(context.Background(), req); err == nil {
			t.Errorf("Search(%s) succeeded, want an error", describe(req))
		}
	}
}

func describe(req backend.SearchRequest) string {
	b, _ := json.Marshal(req)
	return fmt.Sprintf("%s", b)
}
