package harvest

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fusiontune/fusiontune/internal/querylog"
)

func TestNormalize(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"Return a damaged item?", "return a damaged item"},
		{"  return   a damaged\titem ", "return a damaged item"},
		{"e-mail support!!", "e mail support"},
		{"don't panic", "don't panic"},
		{"café, Über", "café über"},
		{"???", ""},
	} {
		if got := Normalize(tc.in); got != tc.want {
			t.Errorf("Normalize(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

var t0 = time.Date(2026, 11, 24, 7, 0, 0, 0, time.UTC)

func search(id, query, cat string, at int, docs ...string) querylog.Event {
	e := querylog.Event{Type: querylog.TypeSearch, Time: t0.Add(time.Duration(at) * time.Minute), RequestID: id, Query: query, Category: cat}
	for i, d := range docs {
		e.Results = append(e.Results, querylog.Result{ID: d, Score: 1 / float64(i+1)})
	}
	return e
}

// TestGroup: searches are grouped by normalised text; the most frequent
// spelling and category win; ids depend only on the normalised text.
func TestGroup(t *testing.T) {
	log := []querylog.Event{
		search("r1", "Return item", "howto", 3),
		search("r2", "return item", "howto", 1),
		search("r3", "return item?", "lookup", 2),
		search("r4", "Return item", "", 5),
		search("r5", "shipping", "", 4),
		search("r6", "!!!", "", 6),
	}
	qs, empty := Group(log)
	if empty != 1 || len(qs) != 2 {
		t.Fatalf("got %d queries, %d empty; want 2, 1", len(qs), empty)
	}
	q := qs[0]
	if q.Norm != "return item" || q.Text != "Return item" || q.Count != 4 || q.Category != "howto" ||
		!q.First.Equal(t0.Add(time.Minute)) || !q.Last.Equal(t0.Add(5*time.Minute)) || !slices.Equal(q.Requests, []string{"r1", "r2", "r3", "r4"}) {
		t.Errorf("query = %+v", q)
	}
	if q.ID != QueryID("return item") || !strings.HasPrefix(q.ID, "h-") || len(q.ID) != 14 {
		t.Errorf("id = %q", q.ID)
	}
	// The same query in a bigger log keeps its id.
	more, _ := Group(append(log, search("r7", "RETURN ITEM", "", 9)))
	if more[0].ID != q.ID || more[0].Count != 5 {
		t.Errorf("re-harvest: %+v", more[0])
	}
}

func queries(n int) []Query {
	var qs []Query
	for i := 0; i < n; i++ {
		norm := fmt.Sprintf("query %03d", i)
		cat := "a"
		if i%4 == 0 {
			cat = "b"
		}
		qs = append(qs, Query{ID: QueryID(norm), Norm: norm, Text: norm, Count: 1 + i%10, Category: cat})
	}
	return qs
}

// TestSample: each method is reproducible for a seed, top takes the most
// frequent, pps favours frequent queries, and stratification keeps the
// categories' shares.
func TestSample(t *testing.T) {
	qs := queries(100)
	ids := func(qs []Query) []string {
		var out []string
		for _, q := range qs {
			out = append(out, q.ID)
		}
		return out
	}
	for _, m := range []string{SampleRandom, SampleTop, SamplePPS} {
		a, err := Sample(qs, Options{Method: m, N: 20, Seed: 7})
		if err != nil {
			t.Fatal(err)
		}
		b, _ := Sample(qs, Options{Method: m, N: 20, Seed: 7})
		if len(a) != 20 || !slices.Equal(ids(a), ids(b)) {
			t.Errorf("%s: not reproducible or wrong size (%d)", m, len(a))
		}
		if c, _ := Sample(qs, Options{Method: m, N: 20, Seed: 8}); m != SampleTop && slices.Equal(ids(a), ids(c)) {
			t.Errorf("%s: another seed gave the same sample", m)
		}
	}
	top, _ := Sample(qs, Options{Method: SampleTop, N: 10})
	for _, q := range top {
		if q.Count != 10 {
			t.Errorf("top: count %d, want the 10 queries of count 10", q.Count)
		}
	}
	// pps: over many seeds, a count-10 query is picked far more often
	// than a count-1 query (expected ratio near 10 for small samples).
	picked := map[int]int{}
	for seed := int64(0); seed < 400; seed++ {
		s, _ := Sample(qs, Options{Method: SamplePPS, N: 5, Seed: seed})
		for _, q := range s {
			picked[q.Count]++
		}
	}
	if picked[10] < 5*picked[1] {
		t.Errorf("pps: count-10 queries picked %d times, count-1 %d", picked[10], picked[1])
	}
	strat, _ := Sample(qs, Options{Method: SampleRandom, N: 20, Seed: 1, Stratify: true})
	byCat := map[string]int{}
	for _, q := range strat {
		byCat[q.Category]++
	}
	if byCat["a"] != 15 || byCat["b"] != 5 {
		t.Errorf("stratified: %v, want a 15, b 5 (75%%/25%%)", byCat)
	}
	all, _ := Sample(qs, Options{Method: SampleRandom, N: 1000})
	if len(all) != 100 {
		t.Errorf("N beyond the queries: %d", len(all))
	}
	for _, o := range []Options{{Method: "stratified", N: 5}, {Method: SampleTop, N: 0}, {Method: SampleTop, N: MaxN + 1}} {
		if _, err := Sample(qs, o); err == nil {
			t.Errorf("%+v accepted", o)
		}
	}
}

func click(id, doc string) querylog.Event {
	return querylog.Event{Type: querylog.TypeFeedback, Time: t0, RequestID: id, Action: querylog.ActionClick, DocID: doc}
}

// TestImplicitHandComputed: COEC on a four-search log, computed by hand.
// Positions: 4 impressions at 1 (2 clicked), 4 at 2 (1 clicked): ctr(1)
// = 0.5, ctr(2) = 0.25.
func TestImplicitHandComputed(t *testing.T) {
	log := &querylog.Log{
		Searches: []querylog.Event{
			search("r1", "q a", "", 0, "d1", "d2"),
			search("r2", "Q a", "", 1, "d1", "d2"),
			search("r3", "q b", "", 2, "d3", "d4"),
			search("r4", "q b", "", 3, "d4", "d3"),
		},
		Feedback: []querylog.Event{click("r1", "d1"), click("r2", "d2"), click("r4", "d4"),
			{Type: querylog.TypeFeedback, Time: t0, RequestID: "r3", Action: querylog.ActionResearch}},
	}
	opt := ClickOptions{MinExpected: 0.5, Relevant: 1, Strong: 2, Exact: 3}
	got, err := Implicit(log, opt)
	if err != nil {
		t.Fatal(err)
	}
	qa, qb := QueryID("q a"), QueryID("q b")
	want := []Judgment{
		{Query: qa, Doc: "d1", Grade: 2, COEC: 1, Expected: 1, Clicks: 1, Impressions: 2, Confidence: 0.5},
		{Query: qa, Doc: "d2", Grade: 3, COEC: 2, Expected: 0.5, Clicks: 1, Impressions: 2, Confidence: 1.0 / 3},
		{Query: qb, Doc: "d3", Grade: 0, COEC: 0, Expected: 0.75, Clicks: 0, Impressions: 2, Confidence: 0.75 / 1.75},
		{Query: qb, Doc: "d4", Grade: 2, COEC: 1 / 0.75, Expected: 0.75, Clicks: 1, Impressions: 2, Confidence: 0.75 / 1.75},
	}
	slices.SortFunc(want, func(a, b Judgment) int { return strings.Compare(a.Query+a.Doc, b.Query+b.Doc) })
	if len(got) != len(want) {
		t.Fatalf("got %d judgments %+v, want %d", len(got), got, len(want))
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.Query != w.Query || g.Doc != w.Doc || g.Grade != w.Grade || g.Clicks != w.Clicks || g.Impressions != w.Impressions ||
			math.Abs(g.COEC-w.COEC) > 1e-12 || math.Abs(g.Expected-w.Expected) > 1e-12 || math.Abs(g.Confidence-w.Confidence) > 1e-12 {
			t.Errorf("judgment %d = %+v, want %+v", i, g, w)
		}
	}
	// The default threshold (one expected click) keeps only d1.
	opt.MinExpected = 0
	got, _ = Implicit(log, opt)
	if len(got) != 1 || got[0].Doc != "d1" {
		t.Errorf("default MinExpected: %+v", got)
	}
	if _, err := Implicit(log, ClickOptions{MinExpected: -1, Relevant: 1, Strong: 2, Exact: 3}); err == nil {
		t.Error("negative MinExpected accepted")
	}
}

// TestImplicitRecoversRelevance: clicks simulated by a seeded
// position-biased model (examined with probability 1/position, clicked
// when examined with a probability rising with the true grade) over
// rankings that put relevant documents anywhere: COEC ranks documents by
// their true grade, so the mean implicit grade rises with the true one.
func TestImplicitRecoversRelevance(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	truth := map[string]int{}
	log := &querylog.Log{}
	clickP := []float64{0.05, 0.3, 0.6, 0.9}
	n := 0
	for q := 0; q < 30; q++ {
		docs := make([]string, 10)
		for i := range docs {
			docs[i] = fmt.Sprintf("q%d-d%d", q, i)
			truth[QueryID(fmt.Sprintf("query %d", q))+"/"+docs[i]] = i % 4
		}
		for rep := 0; rep < 60; rep++ {
			rng.Shuffle(len(docs), func(i, j int) { docs[i], docs[j] = docs[j], docs[i] })
			id := fmt.Sprint("r", n)
			n++
			log.Searches = append(log.Searches, search(id, fmt.Sprintf("query %d", q), "", n, docs...))
			for p, d := range docs {
				if rng.Float64() < 1/float64(p+1) && rng.Float64() < clickP[truth[QueryID(fmt.Sprintf("query %d", q))+"/"+d]] {
					log.Feedback = append(log.Feedback, click(id, d))
				}
			}
		}
	}
	js, err := Implicit(log, ClickOptions{Relevant: 1, Strong: 2, Exact: 3})
	if err != nil {
		t.Fatal(err)
	}
	sum, cnt := make([]float64, 4), make([]float64, 4)
	for _, j := range js {
		g := truth[j.Query+"/"+j.Doc]
		sum[g] += j.COEC
		cnt[g]++
	}
	for g := 1; g < 4; g++ {
		if cnt[g] == 0 || cnt[g-1] == 0 || sum[g]/cnt[g] <= sum[g-1]/cnt[g-1] {
			t.Errorf("mean COEC by true grade %v (counts %v) does not rise", sum, cnt)
			break
		}
	}
}
