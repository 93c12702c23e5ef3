package metrics_test

import (
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/fusiontune/fusiontune/metrics"
)

// benchQueries builds n queries of depth-document rankings with about 60
// graded judgments each. Rankings are drawn from 1,000 distinct lists to keep
// memory small; judgments differ per query.
func benchQueries(n, depth int) ([][]string, []metrics.Judgments) {
	rng := rand.New(rand.NewPCG(1, 2))
	pool := make([]string, 200_000)
	for i := range pool {
		pool[i] = "doc-" + strconv.Itoa(i)
	}
	lists := make([][]string, min(n, 1000))
	for i := range lists {
		l := make([]string, depth)
		for d := range l {
			l[d] = pool[rng.IntN(len(pool))]
		}
		lists[i] = l
	}
	rankings := make([][]string, n)
	judgments := make([]metrics.Judgments, n)
	for q := range n {
		r := lists[q%len(lists)]
		rankings[q] = r
		j := metrics.Judgments{}
		for range 20 { // judged documents near the top of the ranking
			j[r[rng.IntN(min(depth, 100))]] = rng.IntN(4)
		}
		for range 40 {
			j[pool[rng.IntN(len(pool))]] = rng.IntN(4)
		}
		judgments[q] = j
	}
	return rankings, judgments
}

// benchScore scores n queries x 1,000 documents with sc per op; with
// prepared, the judgments go through metrics.NewQuery once, as the tuner
// scores them trial after trial.
func benchScore(b *testing.B, n int, sc metrics.Scorecard, prepared bool) {
	rankings, judgments := benchQueries(n, 1000)
	o := metrics.DefaultOptions()
	queries := make([]*metrics.Query, len(judgments))
	for i, j := range judgments {
		queries[i] = metrics.NewQuery(j, o)
	}
	dst := make([]float64, len(sc.Metrics))
	b.ReportAllocs()
	for b.Loop() {
		for q := range rankings {
			if prepared {
				dst = sc.ScoreQuery(dst, rankings[q], queries[q])
			} else {
				dst = sc.ScoreInto(dst, rankings[q], judgments[q], o)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(rankings)), "ns/query")
}

// BenchmarkScoreDefaultComposite scores 10,000 queries x 1,000 documents
// with the default composite's scorecard; one op is the whole set.
func BenchmarkScoreDefaultComposite(b *testing.B) {
	benchScore(b, 10_000, metrics.NewScorecard("default", metrics.DefaultComposite.Metrics()...), false)
}

// BenchmarkScoreQueryDefaultComposite is BenchmarkScoreDefaultComposite
// through prepared queries (Scorecard.ScoreQuery).
func BenchmarkScoreQueryDefaultComposite(b *testing.B) {
	benchScore(b, 10_000, metrics.NewScorecard("default", metrics.DefaultComposite.Metrics()...), true)
}

// BenchmarkScoreFullDepth scores 1,000 queries x 1,000 documents with
// measures that read the whole ranking (AP, NDCG, R-Precision).
func BenchmarkScoreFullDepth(b *testing.B) {
	benchScore(b, 1000, metrics.NewScorecard("full", metrics.MustParseMetric("AP"), metrics.MustParseMetric("NDCG"),
		metrics.MustParseMetric("R-Precision"), metrics.MustParseMetric("Recall@1000")), false)
}

// BenchmarkSummarizer summarizes one replayed trial: 300 queries of 8
// metrics in 4 categories and 3 difficulties; one op is the whole trial.
func BenchmarkSummarizer(b *testing.B) {
	names := []string{"AP", "ERR@10", "MRR@10", "NDCG@10", "P@5", "R-Precision", "Recall@100", "Success@1"}
	labels := make([]metrics.QueryLabels, 300)
	vals := make([][]float64, len(labels))
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range labels {
		labels[i] = metrics.QueryLabels{Category: "cat" + strconv.Itoa(i%4), Difficulty: "diff" + strconv.Itoa(i%3),
			Judged: i%10 != 0, Routed: true}
		vals[i] = make([]float64, len(names))
		for j := range vals[i] {
			vals[i][j] = rng.Float64()
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		sm := metrics.NewSummarizer(names)
		for i, l := range labels {
			sm.Add(l, vals[i], nil, vals[i][0], i%2 == 0)
		}
		_ = sm.Summary()
	}
}
