package engine_test

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/backend/engine"
	"github.com/fusiontune/fusiontune/backend/fusion"
	"github.com/fusiontune/fusiontune/metrics"
)

// readBEIRQrels reads a BEIR qrels TSV (header "query-id corpus-id score").
func readBEIRQrels(tb testing.TB, path string) map[string]metrics.Judgments {
	tb.Helper()
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	q := map[string]metrics.Judgments{}
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		fs := strings.Split(sc.Text(), "\t")
		if line == 1 || len(fs) != 3 {
			continue
		}
		g, err := strconv.Atoi(fs[2])
		if err != nil {
			tb.Fatalf("%s:%d: %v", path, line, err)
		}
		if q[fs[0]] == nil {
			q[fs[0]] = metrics.Judgments{}
		}
		q[fs[0]][fs[1]] = g
	}
	return q
}

// meanNDCG10 runs every judged query and returns the mean nDCG@10.
func meanNDCG10(tb testing.TB, s backend.Searcher, queries []query, qrels map[string]metrics.Judgments, p *fusion.Params) float64 {
	tb.Helper()
	m := metrics.MustParseMetric("NDCG@10")
	sum, n := 0.0, 0
	for _, q := range queries {
		j, ok := qrels[q.ID]
		if !ok {
			continue
		}
		resp, err := s.Search(context.Background(), backend.SearchRequest{Query: q.Text, K: 10, Fusion: p})
		if err != nil {
			tb.Fatal(err)
		}
		ranking := make([]string, len(resp.Hits))
		for i, h := range resp.Hits {
			ranking[i] = h.DocID
		}
		sum += m.Score(ranking, j, metrics.DefaultOptions())
		n++
	}
	if n == 0 {
		tb.Fatal("no judged query")
	}
	return sum / float64(n)
}

// TestSciFactBM25 checks BM25 over title + text on SciFact against the
// published range (BEIR 0.665, Anserini flat 0.679).
func TestSciFactBM25(t *testing.T) {
	data := sharedData(t, "scifact")
	e := build(t, scifactConfig(t, t.TempDir()))
	queries := readQueries(t, filepath.Join(data, "queries.jsonl"))
	qrels := readBEIRQrels(t, filepath.Join(data, "qrels", "test.tsv"))
	if len(queries) != 300 || len(qrels) != 300 {
		t.Fatalf("%d queries, %d judged: want 300", len(queries), len(qrels))
	}
	got := meanNDCG10(t, e, queries, qrels, nil)
	t.Logf("SciFact BM25 (k1 %v, b %v) nDCG@10 = %.4f", engine.DefaultK1, engine.DefaultB, got)
	if got < 0.655 || got > 0.70 {
		t.Errorf("nDCG@10 = %.4f, want within [0.655, 0.70]", got)
	}
}

// TestSciFactSweep measures nDCG@10 of the dense retrievers and of fused
// variants. It takes about a minute, so it runs only with
// FUSIONTUNE_SCIFACT_SWEEP=1; it fails if fusion does not beat BM25.
func TestSciFactSweep(t *testing.T) {
	if os.Getenv("FUSIONTUNE_SCIFACT_SWEEP") == "" {
		t.Skip("set FUSIONTUNE_SCIFACT_SWEEP=1 to measure dense and fused nDCG@10 on SciFact")
	}
	data := sharedData(t, "scifact")
	queries := readQueries(t, filepath.Join(data, "queries.jsonl"))
	qrels := readBEIRQrels(t, filepath.Join(data, "qrels", "test.tsv"))
	cache := t.TempDir()
	bm25 := meanNDCG10(t, build(t, scifactConfig(t, cache)), queries, qrels, nil)
	t.Logf("bm25: %.4f", bm25)
	best := 0.0
	for _, model := range []string{"hash-384", "lsa-256"} {
		c := scifactConfig(t, cache)
		c.Retrievers = []string{engine.BM25, engine.Dense}
		c.Dense.Model = model
		e := build(t, c)
		only := meanNDCG10(t, e, queries, qrels, &fusion.Params{Weights: map[string]float64{engine.BM25: 0}})
		t.Logf("%s alone: %.4f", model, only)
		for _, k := range []float64{10, 60} {
			for _, w := range []float64{0.1, 0.2, 0.35, 0.5} {
				p := &fusion.Params{Method: fusion.RRF, K: k, Weights: map[string]float64{engine.BM25: 1 - w, engine.Dense: w}}
				v := meanNDCG10(t, e, queries, qrels, p)
				best = max(best, v)
				t.Logf("%s rrf k=%v dense weight %v: %.4f", model, k, w, v)
			}
		}
		for _, norm := range []fusion.Normalization{fusion.MinMax, fusion.ZScore} {
			for _, w := range []float64{0.2, 0.35, 0.5} {
				p := &fusion.Params{Method: fusion.Linear, Normalization: norm, Weights: map[string]float64{engine.BM25: 1 - w, engine.Dense: w}}
				v := meanNDCG10(t, e, queries, qrels, p)
				best = max(best, v)
				t.Logf("%s linear %s dense weight %v: %.4f", model, norm, w, v)
			}
		}
	}
	if best <= bm25 {
		t.Errorf("best fusion %.4f does not beat bm25 %.4f", best, bm25)
	}
}
