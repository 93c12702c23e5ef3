package weaviate_test

import (
	"context"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/backend/corpus"
	"github.com/fusiontune/fusiontune/backend/fusion"
	"github.com/fusiontune/fusiontune/backend/weaviate"
	"github.com/fusiontune/fusiontune/backend/weaviate/weaviatetest"
	"github.com/fusiontune/fusiontune/experiments"
	"github.com/fusiontune/fusiontune/experiments/shareddata"
	"github.com/fusiontune/fusiontune/metrics"
)

// TestSciFactGrid is the Weaviate show (scripts/bench-weaviate.sh runs it
// with FUSIONTUNE_WEAVIATE_BENCH=1): SciFact's corpus and 300 test
// queries, lsa-256 for documents and queries, through the weaviate kind;
// an alpha x fusionType x BM25 (k1, b) grid (11 alphas times the variants
// of FUSIONTUNE_WEAVIATE_GRID, see gridVariants) scored live (one hybrid query
// per config and query) and by replay (each leg issued once per query and
// BM25 setting, fused offline with fusion.WeaviateHybrid), with wall
// times, NDCG@10 per config, and every config and query verified: the
// same top 5 and scores equal within 1e-9.
func TestSciFactGrid(t *testing.T) {
	if os.Getenv("FUSIONTUNE_WEAVIATE_BENCH") != "1" {
		t.Skip("set FUSIONTUNE_WEAVIATE_BENCH=1 (scripts/bench-weaviate.sh)")
	}
	dir := shareddata.Path(t, "scifact")
	gs, err := experiments.LoadGoldenSet(dir, experiments.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	const depth, k = 100, 10
	bin, err := weaviatetest.Bin()
	if err != nil {
		t.Fatal(err)
	}
	f, err := weaviate.New(weaviate.Options{Bin: bin, Model: "lsa-256",
		Corpus: corpus.Config{Path: experiments.BEIRCorpusPath(dir), Format: corpus.FormatBEIR}})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	b, err := f.Open(t.TempDir(), testLog{t})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	t.Logf("server ready in %v", time.Since(start).Round(time.Millisecond))
	start = time.Now()
	if err := b.Apply(ctx, nil); err != nil {
		t.Fatal(err)
	}
	t.Logf("embedded and loaded in %v", time.Since(start).Round(time.Millisecond))

	ndcg := metrics.MustParseMetric("NDCG@10")
	judg := make([]metrics.Judgments, len(gs.Queries))
	for i, q := range gs.Queries {
		judg[i] = metrics.Judgments{}
		for _, j := range q.Judgments {
			judg[i][j.DocID] = j.Grade
		}
	}
	score := func(rankings [][]string) float64 {
		var sum float64
		for i, r := range rankings {
			sum += ndcg.Score(r, judg[i], metrics.DefaultOptions())
		}
		return sum / float64(len(rankings))
	}
	type cfg struct {
		ft           string
		alpha, k1, b float64
	}
	variants, err := gridVariants(os.Getenv("FUSIONTUNE_WEAVIATE_GRID"))
	if err != nil {
		t.Fatal(err)
	}
	var grid []cfg
	for _, v := range variants {
		for a := 0; a <= 10; a++ {
			grid = append(grid, cfg{v.ft, float64(a) / 10, v.k1, v.b})
		}
	}
	params := func(c cfg) map[string]any {
		return map[string]any{"alpha": c.alpha, "fusionType": c.ft, "bm25.k1": c.k1, "bm25.b": c.b}
	}

	// Live: one hybrid query per config and query.
	live := make([][][]backendHit, len(grid))
	start = time.Now()
	for ci, c := range grid {
		if err := b.Apply(ctx, params(c)); err != nil {
			t.Fatal(err)
		}
		live[ci] = make([][]backendHit, len(gs.Queries))
		for qi, q := range gs.Queries {
			resp, err := b.Search(ctx, searchReq(q.Text, k, false))
			if err != nil {
				t.Fatal(err)
			}
			for _, h := range resp.Hits {
				live[ci][qi] = append(live[ci][qi], backendHit{h.DocID, h.Score})
			}
		}
	}
	liveWall := time.Since(start)

	// Replay: legs once per query and BM25 setting, fused offline.
	start = time.Now()
	legs := map[[2]float64][]map[string][]fusion.Candidate{}
	replayed := make([][][]fusion.Result, len(grid))
	for ci, c := range grid {
		key := [2]float64{c.k1, c.b}
		if legs[key] == nil {
			if err := b.Apply(ctx, params(c)); err != nil {
				t.Fatal(err)
			}
			for _, q := range gs.Queries {
				resp, err := b.Search(ctx, searchReq(q.Text, k, true))
				if err != nil {
					t.Fatal(err)
				}
				legs[key] = append(legs[key], resp.Candidates)
			}
		}
		tr, err := weaviate.Translate(params(c))
		if err != nil {
			t.Fatal(err)
		}
		replayed[ci] = make([][]fusion.Result, len(gs.Queries))
		for qi := range gs.Queries {
			replayed[ci][qi] = weaviate.Replay(legs[key][qi], tr, k)
		}
	}
	replayWall := time.Since(start)

	verified, top5, scoreDiff := 0, 0, 0
	var maxDiff float64
	best := map[string]float64{}
	bestAt := map[string]cfg{}
	for ci, c := range grid {
		var lr, rr [][]string
		for qi := range gs.Queries {
			l, r := live[ci][qi], replayed[ci][qi]
			lr, rr = append(lr, ids(l)), append(rr, resultIDs(r))
			verified++
			if !sameTop(ids(l), resultIDs(r), 5) {
				top5++
				if top5 <= 3 {
					t.Errorf("%+v query %s: top 5 live %v, replay %v", c, gs.Queries[qi].ID, ids(l), resultIDs(r))
				}
			}
			for i := range min(len(l), len(r)) {
				if d := math.Abs(l[i].score - r[i].Score); d > 1e-9 {
					scoreDiff++
					maxDiff = max(maxDiff, d)
				}
			}
		}
		nl, nr := score(lr), score(rr)
		if nl != nr {
			t.Errorf("%+v: NDCG@10 live %.6f, replay %.6f", c, nl, nr)
		}
		t.Logf("%-19s alpha %.1f k1 %.1f b %.2f: NDCG@10 %.4f", c.ft, c.alpha, c.k1, c.b, nl)
		name := c.ft
		switch c.alpha {
		case 0:
			name = "bm25 only"
		case 1:
			name = "vector only"
		}
		if nl > best[name] {
			best[name], bestAt[name] = nl, c
		}
	}
	for _, name := range []string{"bm25 only", "vector only", fusion.WeaviateRankedFusion, fusion.WeaviateRelativeScoreFusion} {
		t.Logf("best %-19s NDCG@10 %.4f at %+v", name, best[name], bestAt[name])
	}
	t.Logf("%d configs x %d queries: live %v, replay %v (%.1fx); verified %d: %d top-5 differences, %d scores off by > 1e-9 (max %g)",
		len(grid), len(gs.Queries), liveWall.Round(time.Millisecond), replayWall.Round(time.Millisecond),
		liveWall.Seconds()/replayWall.Seconds(), verified, top5, scoreDiff, maxDiff)
	if top5 > 0 || scoreDiff > 0 {
		t.Errorf("replay differs from live: %d top-5 differences, %d scores", top5, scoreDiff)
	}
}

// defaultGrid is the grid's variants without FUSIONTUNE_WEAVIATE_GRID:
// both fusion types under two BM25 settings, 44 configs with the 11
// alphas.
const defaultGrid = "rankedFusion:1.2:0.75 relativeScoreFusion:1.2:0.75 rankedFusion:0.9:0.4 relativeScoreFusion:0.9:0.4"

type variant struct {
	ft    string
	k1, b float64
}

// gridVariants parses FUSIONTUNE_WEAVIATE_GRID: space-separated
// fusionType:k1:b variants, each swept over the 11 alphas 0, 0.1, ..., 1
// ("" is defaultGrid; scripts/bench-weaviate.sh GRID=55 adds a fifth).
func gridVariants(s string) ([]variant, error) {
	if strings.TrimSpace(s) == "" {
		s = defaultGrid
	}
	var out []variant
	for _, f := range strings.Fields(s) {
		parts := strings.Split(f, ":")
		if len(parts) != 3 || parts[0] != fusion.WeaviateRankedFusion && parts[0] != fusion.WeaviateRelativeScoreFusion {
			return nil, fmt.Errorf("FUSIONTUNE_WEAVIATE_GRID: %q: want fusionType:k1:b with fusionType rankedFusion or relativeScoreFusion", f)
		}
		k1, err1 := strconv.ParseFloat(parts[1], 64)
		b, err2 := strconv.ParseFloat(parts[2], 64)
		if err1 != nil || err2 != nil || k1 < 0 || b < 0 || b > 1 {
			return nil, fmt.Errorf("FUSIONTUNE_WEAVIATE_GRID: %q: want k1 >= 0 and b from 0 to 1", f)
		}
		out = append(out, variant{parts[0], k1, b})
	}
	return out, nil
}

type backendHit struct {
	docID string
	score float64
}

type testLog struct{ t *testing.T }

func (l testLog) Write(p []byte) (int, error) { l.t.Log(string(p)); return len(p), nil }

func ids(hs []backendHit) []string {
	out := make([]string, len(hs))
	for i, h := range hs {
		out[i] = h.docID
	}
	return out
}

func resultIDs(rs []fusion.Result) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.DocID
	}
	return out
}

func sameTop(a, b []string, n int) bool {
	if min(len(a), n) != min(len(b), n) {
		return false
	}
	for i := range min(len(a), n) {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func searchReq(q string, k int, explain bool) backend.SearchRequest {
	return backend.SearchRequest{Query: q, K: k, Explain: explain}
}
