package embed_test

import (
	"bufio"
	"context"
	"encoding/json"
	"github.com/fusiontune/fusiontune/experiments/shareddata"
	"math"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/fusiontune/fusiontune/backend/embed"
)

// sharedData is shareddata.Path: ../shared/data/<name>, or a skip.
func sharedData(tb testing.TB, name string) string { return shareddata.Path(tb, name) }

// scifactCorpus reads SciFact's title + text per document.
func scifactCorpus(tb testing.TB) []string {
	_, texts := scifactDocs(tb)
	return texts
}

// scifactDocs reads SciFact's document ids and title + text.
func scifactDocs(tb testing.TB) (ids, texts []string) {
	tb.Helper()
	f, err := os.Open(sharedData(tb, "scifact/corpus.jsonl"))
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var d struct {
			ID    string `json:"_id"`
			Title string `json:"title"`
			Text  string `json:"text"`
		}
		if err := json.Unmarshal(sc.Bytes(), &d); err != nil {
			tb.Fatal(err)
		}
		ids = append(ids, d.ID)
		texts = append(texts, d.Title+"\n"+d.Text)
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	return ids, texts
}

// scifactQueries returns the test queries that have judgments, with the
// set of relevant document ids of each.
func scifactQueries(tb testing.TB) (texts []string, relevant []map[string]bool) {
	tb.Helper()
	qrels := make(map[string]map[string]bool)
	data, err := os.ReadFile(sharedData(tb, "scifact/qrels/test.tsv"))
	if err != nil {
		tb.Fatal(err)
	}
	for i, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		f := strings.Fields(line)
		if i == 0 || len(f) != 3 || f[2] == "0" {
			continue
		}
		if qrels[f[0]] == nil {
			qrels[f[0]] = make(map[string]bool)
		}
		qrels[f[0]][f[1]] = true
	}
	qdata, err := os.ReadFile(sharedData(tb, "scifact/queries.jsonl"))
	if err != nil {
		tb.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(qdata)), "\n") {
		var q struct {
			ID   string `json:"_id"`
			Text string `json:"text"`
		}
		if err := json.Unmarshal([]byte(line), &q); err != nil {
			tb.Fatal(err)
		}
		if rel := qrels[q.ID]; rel != nil {
			texts = append(texts, q.Text)
			relevant = append(relevant, rel)
		}
	}
	return texts, relevant
}

// ndcg10 is the mean binary-gain nDCG@10 of cosine search over docs.
func ndcg10(tb testing.TB, e embed.Embedder, ids []string, docs [][]float32, queries []string, relevant []map[string]bool) float64 {
	tb.Helper()
	var sum float64
	scores := make([]float64, len(docs))
	order := make([]int, len(docs))
	for qi, q := range queries {
		qv, err := e.EmbedQuery(context.Background(), q)
		if err != nil {
			tb.Fatal(err)
		}
		for i, d := range docs {
			var dot float64
			for j := range d {
				dot += float64(d[j]) * float64(qv[j])
			}
			scores[i], order[i] = dot, i
		}
		sort.Slice(order, func(a, b int) bool {
			if scores[order[a]] != scores[order[b]] {
				return scores[order[a]] > scores[order[b]]
			}
			return ids[order[a]] < ids[order[b]]
		})
		var dcg, idcg float64
		for r := 0; r < 10; r++ {
			if relevant[qi][ids[order[r]]] {
				dcg += 1 / math.Log2(float64(r+2))
			}
			if r < len(relevant[qi]) {
				idcg += 1 / math.Log2(float64(r+2))
			}
		}
		sum += dcg / idcg
	}
	return sum / float64(len(queries))
}

// TestLSASciFact fits lsa-256 on SciFact's 5,183 documents, logs the fit
// time and the nDCG@10 of dense-only retrieval over the judged test
// queries, and compares it with hash-256, which knows nothing of the
// corpus: a broken projection (documents and queries in different spaces)
// would fall to about zero. It checks shape, norms and that floor, not speed.
func TestLSASciFact(t *testing.T) {
	if testing.Short() {
		t.Skip("fits lsa-256 on SciFact: skipped with -short")
	}
	ids, texts := scifactDocs(t)
	e := embed.NewLSA(256, embed.DefaultSeed)
	start := time.Now()
	if err := e.Fit(context.Background(), embed.Strings(texts)); err != nil {
		t.Fatal(err)
	}
	t.Logf("lsa-256 fit on %d SciFact docs (%d terms): %v", len(texts), e.Vocabulary(), time.Since(start))
	start = time.Now()
	vecs, err := e.EmbedDocuments(context.Background(), nil, texts)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("embedding the %d docs: %v", len(texts), time.Since(start))
	for i, v := range vecs {
		if len(v) != 256 {
			t.Fatalf("doc %d: %d dimensions", i, len(v))
		}
		if n := embed.Cosine(v, v); n < 0.999 {
			t.Fatalf("doc %d: norm² %v", i, n)
		}
	}
	queries, relevant := scifactQueries(t)
	lsa := ndcg10(t, e, ids, vecs, queries, relevant)
	hash := embed.NewHash(256)
	hashNDCG := ndcg10(t, hash, ids, embedAll(t, hash, texts), queries, relevant)
	t.Logf("dense-only nDCG@10 over %d queries: lsa-256 %.4f, hash-256 %.4f", len(queries), lsa, hashNDCG)
	if lsa < 0.2 {
		t.Errorf("lsa-256 nDCG@10 %.4f is below 0.2: queries and documents are not in one space", lsa)
	}
}

// BenchmarkLSAFitSciFact reports the lsa-256 fit time on SciFact.
func BenchmarkLSAFitSciFact(b *testing.B) {
	texts := scifactCorpus(b)
	for b.Loop() {
		if err := embed.NewLSA(256, embed.DefaultSeed).Fit(context.Background(), embed.Strings(texts)); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(texts)), "docs")
}
