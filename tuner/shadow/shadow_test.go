package shadow

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/fusiontune/fusiontune/experiments/demo"
	"github.com/fusiontune/fusiontune/internal/querylog"
	"github.com/fusiontune/fusiontune/metrics"
	"github.com/fusiontune/fusiontune/metrics/stats"
)

func opts() Options {
	return Options{K: 3, Metric: metrics.MustParseMetric("NDCG@3"), Grades: metrics.DefaultOptions(),
		SPRT: stats.SPRTOptions{Alpha: 0.05, Beta: 0.2, Effect: 0.05, BurnIn: 2}, Seed: 1}
}

// TestCompareHandComputed: the three diff classes, tau, Jaccard, top-1
// and the judged metric delta on three queries, computed by hand.
func TestCompareHandComputed(t *testing.T) {
	qs := []Query{
		{ID: "q1", Control: List{IDs: []string{"a", "b", "c"}, LatencyMS: 1}, Treatment: List{IDs: []string{"a", "b", "c"}, LatencyMS: 2}},
		{ID: "q2", Control: List{IDs: []string{"a", "b", "c"}, LatencyMS: 3}, Treatment: List{IDs: []string{"b", "a", "c"}, LatencyMS: 4},
			Judgments: metrics.Judgments{"b": 3}},
		{ID: "q3", Control: List{IDs: []string{"a", "b", "c", "x"}, LatencyMS: -1}, Treatment: List{IDs: []string{"a", "b", "d"}, LatencyMS: -1}},
	}
	r, err := Compare(qs, opts())
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		class   string
		tau     float64
		jaccard float64
		top1    bool
	}{
		{Identical, 1, 1, false},
		{Minor, 1.0 / 3, 1, true}, // one discordant pair of three
		{Major, 0, 0.5, false},    // tau-b over a,b,c,d with c and d each missing from one side
	}
	for i, w := range want {
		d := r.Queries[i]
		if d.Class != w.class || math.Abs(d.Jaccard-w.jaccard) > 1e-12 || d.Top1Changed != w.top1 {
			t.Errorf("%s: %+v, want %+v", d.ID, d, w)
		}
		if i < 2 && math.Abs(d.Tau-w.tau) > 1e-12 {
			t.Errorf("%s: tau %v, want %v", d.ID, d.Tau, w.tau)
		}
		if d.Tau != stats.KendallTau(qs[i].Control.IDs[:min(3, len(qs[i].Control.IDs))], qs[i].Treatment.IDs) {
			t.Errorf("%s: tau is not stats.KendallTau of the top 3", d.ID)
		}
	}
	if r.Counts[Identical] != 1 || r.Counts[Minor] != 1 || r.Counts[Major] != 1 || math.Abs(r.Top1Changed-1.0/3) > 1e-12 {
		t.Errorf("counts %v top1 %v", r.Counts, r.Top1Changed)
	}
	// q2 judged: control has b at rank 2 (NDCG@3 = (7/log2(3))/7), the
	// treatment at rank 1 (1).
	m := r.Metric
	if m == nil || m.N != 1 || math.Abs(m.Control-1/math.Log2(3)) > 1e-12 || m.Treated != 1 {
		t.Fatalf("metric %+v", m)
	}
	if r.ControlLatency.N != 2 || r.ControlLatency.P50 != 1 || r.TreatmentLatency.P99 != 4 {
		t.Errorf("latency %+v %+v", r.ControlLatency, r.TreatmentLatency)
	}
	if _, err := Compare(qs, Options{K: 0}); err == nil {
		t.Error("k 0 accepted")
	}
}

// TestRunEngines: the same config on both sides gives only identical
// lists; another RRF k changes some of them, on the real embedded engine
// over the demo corpus.
func TestRunEngines(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "corpus.jsonl"), demo.Corpus, 0o644); err != nil {
		t.Fatal(err)
	}
	var golden struct {
		Queries []struct {
			Query string `json:"query"`
		} `json:"queries"`
	}
	if err := json.Unmarshal(demo.Golden, &golden); err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, q := range golden.Queries {
		texts = append(texts, q.Query)
	}
	cfg := func(k int) []byte {
		return []byte("corpus: {path: corpus.jsonl}\nretrievers: [bm25, dense]\ndense: {model: hash-64}\nfusion: {method: rrf, k: " + strconv.Itoa(k) + ", weights: {bm25: 1, dense: 3}}\ncache_dir: cache\n")
	}
	ctx := context.Background()
	lists := map[int][]List{}
	for _, k := range []int{60, 1} {
		e, err := Engine(ctx, cfg(k), filepath.Join(dir, "engine.yaml"), dir, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		lists[k], err = Run(ctx, e, texts, 10)
		e.Close()
		if err != nil {
			t.Fatal(err)
		}
	}
	build := func(a, b []List) []Query {
		var qs []Query
		for i := range texts {
			qs = append(qs, Query{ID: strconv.Itoa(i), Text: texts[i], Control: a[i], Treatment: b[i]})
		}
		return qs
	}
	o := opts()
	o.K = 10
	same, err := Compare(build(lists[60], lists[60]), o)
	if err != nil {
		t.Fatal(err)
	}
	if same.Counts[Identical] != len(texts) || same.Top1Changed != 0 {
		t.Errorf("same config: %v", same.Counts)
	}
	diff, _ := Compare(build(lists[60], lists[1]), o)
	if diff.Counts[Identical] == len(texts) || diff.MeanJaccard <= 0 {
		t.Errorf("k 60 vs 1: %v, mean Jaccard %v", diff.Counts, diff.MeanJaccard)
	}
	for _, l := range lists[60] {
		if l.LatencyMS <= 0 {
			t.Fatalf("latency not measured: %+v", l)
		}
	}
	t.Logf("k 60 vs 1 on %d demo queries: %v, mean tau %.3f, Jaccard %.3f, top-1 changed %.3f", len(texts), diff.Counts, diff.MeanTau, diff.MeanJaccard, diff.Top1Changed)
}

// TestShadowFromLiveShadowEvents: with the treatment "shadow", each query
// is compared on the latest search the live shadow mode answered too
// (both sides of one request); queries never shadowed are left out.
func TestShadowFromLiveShadowEvents(t *testing.T) {
	t0 := time.Date(2026, 11, 24, 7, 0, 0, 0, time.UTC)
	res := func(ids ...string) []querylog.Result {
		var out []querylog.Result
		for _, id := range ids {
			out = append(out, querylog.Result{ID: id, Score: 1})
		}
		return out
	}
	log := &querylog.Log{
		Searches: []querylog.Event{
			{Type: "search", Time: t0, RequestID: "r1", Query: "alpha", Results: res("a", "b")},
			{Type: "search", Time: t0, RequestID: "r2", Query: "Alpha?", Results: res("a", "c")},
			{Type: "search", Time: t0, RequestID: "r3", Query: "beta", Results: res("x", "y")},
			{Type: "search", Time: t0, RequestID: "r4", Query: "gamma", Results: res("g")},
		},
		Shadows: []querylog.Event{
			{Type: "shadow", Time: t0, RequestID: "r1", Results: res("b", "a"), Diff: &querylog.Diff{Class: "minor"}},
			{Type: "shadow", Time: t0, RequestID: "r3", Results: res("x", "y"), Diff: &querylog.Diff{Class: "identical"}},
		},
	}
	o := opts()
	o.K = 2
	r, err := Shadow(context.Background(), Config{Log: log, Control: Side{Name: "log", Log: true}, Treatment: Side{Name: "shadow", Shadow: true}, Options: o})
	if err != nil {
		t.Fatal(err)
	}
	// alpha: paired on r1 (its only shadowed search), not the later r2.
	if len(r.Queries) != 2 || r.Counts[Minor] != 1 || r.Counts[Identical] != 1 {
		t.Fatalf("counts %v over %d queries", r.Counts, len(r.Queries))
	}
	if _, err := Shadow(context.Background(), Config{Log: &querylog.Log{Searches: log.Searches}, Control: Side{Log: true}, Treatment: Side{Shadow: true}, Options: o}); err == nil {
		t.Error("a log without shadow answers was accepted")
	}
}

// TestShadowComparesAtTheLoggedDepth: a logged search that asked for k =
// 2 is compared with the treatment's top 2, not its top 10: the same two
// documents first are identical, whatever follows.
func TestShadowComparesAtTheLoggedDepth(t *testing.T) {
	t0 := time.Date(2026, 11, 24, 7, 0, 0, 0, time.UTC)
	log := &querylog.Log{
		Searches: []querylog.Event{{Type: "search", Time: t0, RequestID: "r1", Query: "alpha", K: 2,
			Results: []querylog.Result{{ID: "a", Score: 2}, {ID: "b", Score: 1}}}},
		Shadows: []querylog.Event{{Type: "shadow", Time: t0, RequestID: "r1", Diff: &querylog.Diff{Class: "major"},
			Results: []querylog.Result{{ID: "a", Score: 2}, {ID: "b", Score: 1}, {ID: "c", Score: 0.5}}}},
	}
	o := opts()
	o.K = 10
	r, err := Shadow(context.Background(), Config{Log: log, Control: Side{Log: true}, Treatment: Side{Shadow: true}, Options: o})
	if err != nil {
		t.Fatal(err)
	}
	if r.Counts[Identical] != 1 || r.Queries[0].Jaccard != 1 {
		t.Errorf("compared at the wrong depth: %+v", r.Queries[0])
	}
}

// TestCompareMcNemar: with a success-type metric (Success@1) the judged
// queries' outcomes are tested by McNemar's test: two queries only the
// control passes, one only the treatment, one both, one neither — the
// exact p-value of 1 win against 2 losses is 1, the corrected chi-square
// (|1−2|−1)²/3 = 0, P(Beta(2, 3) > 1/2) = 5/16. A graded metric has none.
func TestCompareMcNemar(t *testing.T) {
	j := metrics.Judgments{"r": 3}
	qs := []Query{
		{ID: "q1", Control: List{IDs: []string{"r", "x"}}, Treatment: List{IDs: []string{"x", "r"}}, Judgments: j},
		{ID: "q2", Control: List{IDs: []string{"r", "x"}}, Treatment: List{IDs: []string{"y", "x"}}, Judgments: j},
		{ID: "q3", Control: List{IDs: []string{"x", "r"}}, Treatment: List{IDs: []string{"r", "x"}}, Judgments: j},
		{ID: "q4", Control: List{IDs: []string{"r"}}, Treatment: List{IDs: []string{"r"}}, Judgments: j},
		{ID: "q5", Control: List{IDs: []string{"x"}}, Treatment: List{IDs: []string{"y"}}, Judgments: j},
	}
	o := opts()
	o.Metric = metrics.MustParseMetric("Success@1")
	r, err := Compare(qs, o)
	if err != nil {
		t.Fatal(err)
	}
	b := r.Metric.Binary
	if b == nil {
		t.Fatal("no McNemar test for Success@1")
	}
	if b.Wins != 1 || b.Losses != 2 || b.Ties != 2 || math.Abs(b.ExactP-1) > 1e-12 || b.ChiSquare != 0 || math.Abs(b.PSuperior-5.0/16) > 1e-12 {
		t.Errorf("McNemar = %+v, want 1 win, 2 losses, 2 ties, exact p 1, chi-square 0, P 0.3125", *b)
	}
	if g, _ := Compare(qs, opts()); g.Metric.Binary != nil {
		t.Errorf("NDCG@3 (graded) got a McNemar test: %+v", *g.Metric.Binary)
	}
}
