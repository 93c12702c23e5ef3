package ui_test

import (
	"bytes"
	"context"
	"fmt"
	"html/template"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fusiontune/fusiontune/tuner/dataset"

	"github.com/fusiontune/fusiontune/cmd/tune/internal/ui"
	"github.com/fusiontune/fusiontune/experiments"
	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner/judging/judge"
	"github.com/fusiontune/fusiontune/tuner/judging/labels"
	"github.com/fusiontune/fusiontune/tuner/judging/pool"
)

// recordRun records a run of n trials (trial i: fusion.k i+1, primary
// rising and falling so that rank and trial order differ) with a
// leaderboard, as a sweep leaves it.
func recordRun(tb testing.TB, store *runs.Store, n int) *runs.Run {
	tb.Helper()
	ks := make([]int, n)
	for i := range ks {
		ks[i] = i + 1
	}
	return recordRunK(tb, store, ks)
}

// recordRunK is recordRun with trial i at fusion.k ks[i].
func recordRunK(tb testing.TB, store *runs.Store, ks []int) *runs.Run {
	tb.Helper()
	n := len(ks)
	run, err := store.Create(runs.Manifest{Experiments: "x", ExperimentName: "grid.json", Backend: "embedded", Seed: 1, Tool: "tune"}, time.Unix(1700000000, 0))
	if err != nil {
		tb.Fatal(err)
	}
	var trials []runs.TrialRecord
	for i := range n {
		p := 0.3 + 0.1*float64((i*7)%n)/float64(n)
		tr := runs.TrialRecord{Index: i, Name: fmt.Sprintf("k=%d", ks[i]), Params: map[string]any{"fusion.k": ks[i], "fusion.method": "rrf"},
			Status: runs.StatusOK, Mode: "live", Primary: p, Baseline: i == 0,
			Summary: runs.Summary{Scorecard: map[string]float64{"NDCG@10": p + 0.2, "Judged@10": 0.5}, Queries: 3,
				Categories: map[string]map[string]float64{"direct": {"primary": p}}}}
		q := []runs.QueryResult{{QueryID: "q1", Category: "direct", Top: []runs.RankedDoc{{DocID: "d1", Score: 1, Grade: -1}}, Labels: "1:L?", Scores: map[string]float64{"Judged@10": 0}, Primary: p}}
		if err := run.RecordTrial(tr, q); err != nil {
			tb.Fatal(err)
		}
		trials = append(trials, tr)
	}
	if err := run.WriteLeaderboard(runs.NewLeaderboard("default", []string{"NDCG@10", "Judged@10"}, trials)); err != nil {
		tb.Fatal(err)
	}
	return run
}

func newServer(tb testing.TB, o ui.Options) *ui.Server {
	tb.Helper()
	s, err := ui.New(o)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.Close() })
	return s
}

func get(t *testing.T, h http.Handler, target string) (int, string) {
	t.Helper()
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, target, nil))
	return w.Code, w.Body.String()
}

var rowRE = regexp.MustCompile(`<tr[^>]* data-trial="([^"]+)"`)

// TestLoopbackOnly: on loopback the app answers only requests naming this
// machine, so a rebound DNS name cannot read it.
func TestLoopbackOnly(t *testing.T) {
	store, err := runs.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	s := newServer(t, ui.Options{Store: store, LoopbackOnly: true})
	for _, tc := range []struct {
		host string
		code int
	}{
		{"127.0.0.1:7700", 200}, {"localhost:7700", 200}, {"[::1]:7700", 200}, {"LOCALHOST", 200},
		{"evil.example:7700", 403}, {"evil.example", 403}, {"localhost.evil.example", 403},
	} {
		w := httptest.NewRecorder()
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		r.Host = tc.host
		s.ServeHTTP(w, r)
		if w.Code != tc.code {
			t.Errorf("Host %s: %d, want %d", tc.host, w.Code, tc.code)
		}
	}
}

// TestRunPageSortAndFilter: the leaderboard sorts by any column both
// ways and filters by parameter value or text.
func TestRunPageSortAndFilter(t *testing.T) {
	store, err := runs.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	run := recordRun(t, store, 5)
	s := newServer(t, ui.Options{Store: store})
	for _, tc := range []struct{ name, query, want string }{
		{"rank", "", "k=3 k=5 k=2 k=4 k=1"},
		{"primary-desc", "sort=primary&desc=1", "k=3 k=5 k=2 k=4 k=1"},
		{"primary-asc", "sort=primary&desc=0", "k=1 k=4 k=2 k=5 k=3"},
		{"name-desc", "sort=name&desc=1", "k=5 k=4 k=3 k=2 k=1"},
		{"metric", "sort=NDCG@10", "k=1 k=4 k=2 k=5 k=3"},
		{"unknown-column", "sort=nope&desc=1", "k=3 k=5 k=2 k=4 k=1"},
		{"filter-param", "filter=fusion.k%3D3", "k=3"},
		{"filter-text", "filter=k%3D2+rrf", "k=2"},
		{"filter-none", "filter=fusion.k%3D9", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, body := get(t, s, "/run/"+run.ID()+"?"+tc.query)
			if code != http.StatusOK {
				t.Fatalf("status %d:\n%s", code, body)
			}
			var got []string
			for _, m := range rowRE.FindAllStringSubmatch(body, -1) {
				got = append(got, m[1])
			}
			if strings.Join(got, " ") != tc.want {
				t.Errorf("rows %v, want %s", got, tc.want)
			}
		})
	}
}

// TestPagesAnswer: every page answers 200 without a dataset or backend,
// saying what is missing; unknown runs and paths answer 404.
func TestPagesAnswer(t *testing.T) {
	store, err := runs.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	run := recordRun(t, store, 3)
	s := newServer(t, ui.Options{Store: store})
	for _, tc := range []struct {
		target string
		code   int
		want   string
	}{
		{"/", 200, run.ID()},
		{"/run/" + run.ID(), 200, "Promotion history"},
		{"/run/" + run.ID() + "?cats=1", 200, `title="primary on category direct"><a href="/run/` + run.ID() + `?sort=cat%3Adirect&amp;desc=1&amp;filter=&amp;cats=1&amp;m=NDCG%4010`},
		{"/run/" + run.ID() + "/report", 200, "<svg"},
		{"/run/" + run.ID() + "/trial/k=2", 200, `<h1 id="trial-name" data-trial="k=2">`},
		{"/run/" + run.ID() + "/trial/k=2", 200, `class="deltas-chart"`},
		{"/run/" + run.ID() + "/trial/nope", 404, "nope"},
		{"/compare", 200, run.ID() + ":k=1"},
		{"/compare?a=" + run.ID() + ":k=1&b=" + run.ID() + ":k=2", 200, "Kendall τ"},
		{"/compare?a=../x:k=1&b=" + run.ID() + ":k=2", 400, "give a run id"},
		{"/compare?a=nope:k=1&b=" + run.ID() + ":k=2", 404, `name="a" value="nope:k=1"`},
		{"/no/such/page", 404, "back to the runs"},
		{"/microscope?run=" + run.ID(), 200, "no dataset configured"},
		{"/microscope?run=" + run.ID() + "&text=boiler", 200, "no backend configured"},
		{"/judge", 200, "no label store configured"},
		{"/dataset", 200, "no dataset configured"},
		{"/run/nope", 404, "no run"},
		{"/run/..%2F..%2Fetc", 404, ""},
		{"/assets/ui.js", 200, "keydown"},
	} {
		code, body := get(t, s, tc.target)
		if code != tc.code || !strings.Contains(body, tc.want) {
			t.Errorf("GET %s: %d, want %d with %q:\n%.3000s", tc.target, code, tc.code, tc.want, body)
		}
	}
}

// TestRunPageReadable: the run page shows a sampled trial by its name
// (its label on hover), a column per varying parameter with values
// rounded for reading, the baseline's defaults at their values marked *,
// the constant parameter stated once; the filter takes a rounded value,
// the score columns name their measure, and the runs page names the
// measure of each run's best score.
func TestRunPageReadable(t *testing.T) {
	store, err := runs.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	run, err := store.Create(runs.Manifest{Experiments: "x", ExperimentName: "study.yaml", Backend: "embedded", Seed: 1, Tool: "tune"}, time.Unix(1700000000, 0))
	if err != nil {
		t.Fatal(err)
	}
	trials := []runs.TrialRecord{
		{Index: 0, Name: "baseline", Baseline: true, Params: map[string]any{"fusion.method": "rrf"}, Status: runs.StatusOK, Mode: "replay", Primary: 0.40},
		{Index: 1, Name: "tpe-001", Sampler: "tpe", Params: map[string]any{"fusion.method": "rrf", "fusion.weights.bm25": 0.9738285182219153, "fusion.k": 37.0},
			Status: runs.StatusOK, Mode: "replay", Primary: 0.45},
		{Index: 2, Name: "tpe-002", Sampler: "tpe", Params: map[string]any{"fusion.method": "rrf", "fusion.weights.bm25": 0.25, "fusion.k": 12.0},
			Status: runs.StatusOK, Mode: "replay", Primary: 0.42},
	}
	for _, tr := range trials {
		if err := run.RecordTrial(tr, []runs.QueryResult{{QueryID: "q1", Labels: "1:L?", Scores: map[string]float64{}, Primary: tr.Primary}}); err != nil {
			t.Fatal(err)
		}
	}
	lb := runs.NewLeaderboard("1*NDCG@10", []string{"NDCG@10"}, trials)
	lb.SetDefaults(func(_ map[string]any, name string) (any, bool) {
		return map[string]any{"fusion.k": 60.0, "fusion.weights.bm25": 1.0}[name], name == "fusion.k" || name == "fusion.weights.bm25"
	})
	if err := run.WriteLeaderboard(lb); err != nil {
		t.Fatal(err)
	}
	s := newServer(t, ui.Options{Store: store})
	_, body := get(t, s, "/run/"+run.ID())
	for _, want := range []string{
		`title="tpe-001 k=37,w.bm25=0.974">tpe-001</a>`, `<td class="num">0.974</td>`, `<td class="num">60*</td>`,
		`<code>fusion.method = rrf</code>`, `title="primary (NDCG@10)"`, `title="Δ primary vs baseline, and whether it is significant"`, "primary (NDCG@10)</text>",
		`<code>fusion.weights.bm25 = 0.974</code>`, "tune apply " + run.ID() + " tpe-001",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("run page lacks %q", want)
		}
	}
	if strings.Contains(body, "0.9738285182219153") {
		t.Error("run page shows a weight to 16 digits")
	}
	_, body = get(t, s, "/run/"+run.ID()+"?filter=fusion.weights.bm25%3D0.974")
	if rows := rowRE.FindAllStringSubmatch(body, -1); len(rows) != 1 || rows[0][1] != "tpe-001" {
		t.Errorf("filter on the rounded weight: rows %v", rows)
	}
	if _, body = get(t, s, "/"); !strings.Contains(body, "<td>NDCG@10</td>") {
		t.Errorf("runs page does not name the measure:\n%s", body)
	}
}

var csrfRE = regexp.MustCompile(`name="csrf-token" content="([0-9a-f]+)"`)

// TestJudgePost: a label POST needs the page's CSRF token and a small
// body; a bad one answers 400 naming every problem and stores nothing; a
// good one is appended to the label store with the person's name.
func TestJudgePost(t *testing.T) {
	dir := t.TempDir()
	store, err := runs.Open(filepath.Join(dir, "runs"))
	if err != nil {
		t.Fatal(err)
	}
	ds, err := dataset.Open(experiments.DatasetConfig{}, "", dir) // the demo
	if err != nil {
		t.Fatal(err)
	}
	docsMap, err := ds.JudgeDocs()
	if err != nil {
		t.Fatal(err)
	}
	docs := ui.DocsOf(docsMap)
	db := filepath.Join(dir, "labels.db")
	s := newServer(t, ui.Options{Store: store, Dataset: ds, Docs: docs, Labels: db})
	_, page := get(t, s, "/")
	m := csrfRE.FindStringSubmatch(page)
	if m == nil {
		t.Fatal("no CSRF token in the page")
	}
	q := ds.Queries[0].ID
	post := func(form url.Values) *httptest.ResponseRecorder {
		w := httptest.NewRecorder()
		r := httptest.NewRequest(http.MethodPost, "/judge", strings.NewReader(form.Encode()))
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		s.ServeHTTP(w, r)
		return w
	}
	for _, tc := range []struct {
		name string
		form url.Values
		code int
		want []string
	}{
		{"no-token", url.Values{"judge": {"Ada"}, "q": {q}, "pick": {"kb-0001|2"}}, 403, []string{"CSRF"}},
		{"wrong-token", url.Values{"csrf": {"00"}, "judge": {"Ada"}, "q": {q}, "pick": {"kb-0001|2"}}, 403, []string{"CSRF"}},
		{"too-big", url.Values{"csrf": {m[1]}, "judge": {strings.Repeat("a", ui.MaxBodyBytes)}}, 413, []string{"too large"}},
		{"bad-everything", url.Values{"csrf": {m[1]}, "judge": {"llm:gpt"}, "q": {"q-none"}, "pick": {"kb-none|7"}}, 400,
			[]string{`judge: "llm:gpt" is reserved`, "grade: want an integer in [0, 3] (got \"7\")", `q: no query "q-none"`, `doc: no document "kb-none"`}},
		{"no-name", url.Values{"csrf": {m[1]}, "q": {q}, "pick": {"kb-0001|2"}}, 400, []string{"judge: give your name"}},
		{"good", url.Values{"csrf": {m[1]}, "judge": {"Ada Tester"}, "q": {q}, "pick": {"kb-0001|2"}}, 303, nil},
	} {
		w := post(tc.form)
		if w.Code != tc.code {
			t.Errorf("%s: status %d, want %d:\n%s", tc.name, w.Code, tc.code, w.Body)
		}
		for _, want := range tc.want {
			if !strings.Contains(w.Body.String(), want) && !strings.Contains(w.Body.String(), strings.ReplaceAll(want, `"`, "&#34;")) {
				t.Errorf("%s: answer lacks %q:\n%s", tc.name, want, w.Body)
			}
		}
	}
	st, err := labels.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ls, err := st.History(context.Background(), ds.DatasetID())
	if err != nil {
		t.Fatal(err)
	}
	if len(ls) != 1 || ls[0].Query != q || ls[0].Doc != "kb-0001" || ls[0].Grade != 2 || ls[0].Judge != "Ada Tester" || ls[0].Source != labels.SourceHuman {
		t.Errorf("label store holds %+v, want the one good label", ls)
	}
}

// judgeSetup is a server over the demo dataset with a label store and the
// pool file a test writes: the first two queries' first two unjudged
// documents (by id).
func judgeSetup(t *testing.T) (s *ui.Server, ds *dataset.Dataset, db, csrf string, pairs []judge.Pair) {
	t.Helper()
	dir := t.TempDir()
	store, err := runs.Open(filepath.Join(dir, "runs"))
	if err != nil {
		t.Fatal(err)
	}
	if ds, err = dataset.Open(experiments.DatasetConfig{}, "", dir); err != nil { // the demo
		t.Fatal(err)
	}
	docs, err := ds.JudgeDocs()
	if err != nil {
		t.Fatal(err)
	}
	var entries []pool.Pair
	for _, q := range ds.Queries[:2] {
		n := 0
		for _, id := range slices.Sorted(maps.Keys(docs)) {
			if _, judged := q.Judgments[id]; !judged && n < 2 {
				entries = append(entries, pool.Pair{Dataset: ds.DatasetID(), Query: q.ID, Doc: id, Priority: 1, Trials: 1, BestRank: 1})
				n++
			}
		}
	}
	var buf bytes.Buffer
	if err := pool.WriteJSONL(&buf, entries); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "pool.jsonl")
	if err := os.WriteFile(file, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if pairs, err = ds.PoolPairs(file, ds.DatasetID()); err != nil {
		t.Fatal(err)
	}
	lookupMap, err := ds.JudgeDocs()
	if err != nil {
		t.Fatal(err)
	}
	lookup := ui.DocsOf(lookupMap)
	db = filepath.Join(dir, "labels.db")
	s = newServer(t, ui.Options{Store: store, Dataset: ds, Docs: lookup, Labels: db, Pool: pairs, PoolFile: file})
	_, page := get(t, s, "/")
	m := csrfRE.FindStringSubmatch(page)
	if m == nil {
		t.Fatal("no CSRF token in the page")
	}
	return s, ds, db, m[1], pairs
}

// post sends a form to target with the judge's cookie and returns the
// answer.
func post(t *testing.T, h http.Handler, target string, form url.Values) *httptest.ResponseRecorder {
	t.Helper()
	w := httptest.NewRecorder()
	r := httptest.NewRequest(http.MethodPost, target, strings.NewReader(form.Encode()))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	r.AddCookie(&http.Cookie{Name: "tune_ui_judge", Value: url.QueryEscape(form.Get("judge"))})
	h.ServeHTTP(w, r)
	return w
}

var coverageRE = regexp.MustCompile(`id="pool-labelled">(\d+)</b> of <span id="pool-total">(\d+)<`)

// TestPoolPageAndUndo: the pool page shows the pool's first query with
// its documents' titles and texts, query terms marked; a label given on
// it is stored and counted in the coverage (overall and per query); undo
// withdraws it (the store's history keeps it, Latest drops it), the
// coverage falls back, and a person's earlier label of the pair counts
// again.
func TestPoolPageAndUndo(t *testing.T) {
	s, ds, db, csrf, pairs := judgeSetup(t)
	coverage := func(target string) (string, string) {
		t.Helper()
		w := httptest.NewRecorder()
		r := httptest.NewRequest(http.MethodGet, target, nil)
		r.AddCookie(&http.Cookie{Name: "tune_ui_judge", Value: "Ada"})
		s.ServeHTTP(w, r)
		code, body := w.Code, w.Body.String()
		m := coverageRE.FindStringSubmatch(body)
		if code != http.StatusOK || m == nil {
			t.Fatalf("GET %s: %d without coverage:\n%.2000s", target, code, body)
		}
		return m[1] + "/" + m[2], body
	}
	cov, body := coverage("/judge/pool")
	first := pairs[0]
	if cov != "0/4" || !strings.Contains(body, `data-doc="`+first.Doc+`"`) || !strings.Contains(body, "<mark>") || !strings.Contains(body, ">0/2<") {
		t.Fatalf("fresh pool page: coverage %s, want 0/4 with %s's documents, marks and 0/2 per query:\n%s", cov, first.Query, body)
	}
	if !strings.Contains(body, `<div class="qtext">`+template.HTMLEscapeString(first.QueryText)+`</div>`) || !strings.Contains(body, `id="unfinished"`) {
		t.Errorf("the pool's sidebar lacks %s's text or the unfinished-only link", first.Query)
	}
	label := func(doc string, grade int) {
		t.Helper()
		w := post(t, s, "/judge", url.Values{"csrf": {csrf}, "judge": {"Ada"}, "q": {first.Query}, "pool": {"1"}, "pick": {fmt.Sprintf("%s|%d", doc, grade)}})
		if w.Code != http.StatusSeeOther || !strings.HasPrefix(w.Header().Get("Location"), "/judge/pool?q=") {
			t.Fatalf("label: %d to %q:\n%s", w.Code, w.Header().Get("Location"), w.Body)
		}
	}
	latest := func() []labels.Label {
		t.Helper()
		st, err := labels.Open(context.Background(), db)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		ls, err := st.Latest(context.Background(), ds.DatasetID())
		if err != nil {
			t.Fatal(err)
		}
		return ls
	}
	label(first.Doc, 1)
	label(first.Doc, 3)
	if cov, body = coverage("/judge/pool?q=" + first.Query); cov != "1/4" || !strings.Contains(body, ">1/2<") || !strings.Contains(body, `id="undo"`) {
		t.Errorf("after labelling: coverage %s, want 1/4 and 1/2 for %s, and an undo button:\n%s", cov, first.Query, body)
	}
	undo := func() {
		t.Helper()
		w := post(t, s, "/judge/undo", url.Values{"csrf": {csrf}, "judge": {"Ada"}, "pool": {"1"}})
		if w.Code != http.StatusSeeOther {
			t.Fatalf("undo: %d:\n%s", w.Code, w.Body)
		}
	}
	undo() // the 3: the earlier 1 counts again
	if ls := latest(); len(ls) != 1 || ls[0].Grade != 1 || ls[0].Doc != first.Doc {
		t.Errorf("after one undo the store's latest labels are %+v, want %s graded 1", ls, first.Doc)
	}
	undo() // the 1: nothing left
	if ls := latest(); len(ls) != 0 {
		t.Errorf("after two undos the store's latest labels are %+v, want none", ls)
	}
	if cov, body = coverage("/judge/pool?q=" + first.Query); cov != "0/4" || strings.Contains(body, `id="undo"`) {
		t.Errorf("after undoing both: coverage %s, want 0/4 and no undo button", cov)
	}
	if w := post(t, s, "/judge/undo", url.Values{"csrf": {csrf}, "judge": {"Ada"}, "pool": {"1"}}); w.Code != http.StatusBadRequest || !strings.Contains(w.Body.String(), "no label") {
		t.Errorf("undo with nothing to undo: %d:\n%s", w.Code, w.Body)
	}
	st, err := labels.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if hist, err := st.History(context.Background(), ds.DatasetID()); err != nil || len(hist) != 2 {
		t.Errorf("history after the undos: %d labels (%v), want both kept", len(hist), err)
	}
	for _, q := range ds.Queries {
		if g, ok := q.Judgments[first.Doc]; q.ID == first.Query && ok {
			t.Errorf("the dataset still grades %s %s %d after the undos", q.ID, first.Doc, g)
		}
	}
	// Both of the first query's pairs labelled: "unfinished only" hides it
	// from another query's sidebar.
	other := ""
	for _, p := range pairs {
		if p.Query == first.Query {
			label(p.Doc, 2)
		} else {
			other = p.Query
		}
	}
	if _, body = coverage("/judge/pool?q=" + other + "&unfinished=1"); strings.Contains(body, `data-q="`+first.Query+`"`) || !strings.Contains(body, `data-q="`+other+`"`) {
		t.Errorf("unfinished only: the sidebar should list %s and not the finished %s", other, first.Query)
	}
	if _, body = coverage("/judge/pool?q=" + other); !strings.Contains(body, `data-q="`+first.Query+`"`) {
		t.Errorf("the full sidebar lacks the finished %s", first.Query)
	}
}

// TestPoolPageOff: without a pool the pool page says how to get one.
func TestPoolPageOff(t *testing.T) {
	store, err := runs.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	s := newServer(t, ui.Options{Store: store})
	if code, body := get(t, s, "/judge/pool"); code != 200 || !strings.Contains(body, "tune ui --pool FILE") {
		t.Errorf("pool page without a pool: %d:\n%s", code, body)
	}
}

var (
	chartRE  = regexp.MustCompile(`(?s)<figure class="pchart" data-param="([^"]+)" data-scale="([^"]+)">(.*?)</figure>`)
	circleRE = regexp.MustCompile(`<circle class="pt( best| baseline)?"`)
	tickRE   = regexp.MustCompile(`<text class="tick"[^>]*>([^<]*)</text>`)
	polyRE   = regexp.MustCompile(`<polyline class="envelope" points="([^"]*)"`)
)

// TestRunPageParamCharts: the run page shows, for each varied parameter
// only, the chart runs/chart draws (the static report's): every
// successful trial's primary at its value (the best and the baseline
// marked), on a linear axis labelled at each value when there are few, at
// round numbers when there are many, on a log axis when the values are
// geometric; the best-per-value line when there are at most 12 values.
func TestRunPageParamCharts(t *testing.T) {
	seq := func(n int) []int {
		out := make([]int, n)
		for i := range out {
			out[i] = i + 1
		}
		return out
	}
	for _, tc := range []struct {
		name  string
		ks    []int
		scale string
		ticks string
		line  int // points on the best-per-value line, 0 none
	}{
		{"few-values", seq(5), "linear", "1 2 3 4 5", 5},
		{"many-values", seq(30), "linear", "5 10 15 20 25 30", 0},
		{"geometric", []int{1, 2, 4, 8, 16, 32, 64, 128, 256, 512}, "log", "1 10 100", 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			store, err := runs.Open(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			run := recordRunK(t, store, tc.ks)
			s := newServer(t, ui.Options{Store: store})
			code, body := get(t, s, "/run/"+run.ID())
			if code != 200 {
				t.Fatalf("status %d", code)
			}
			charts := chartRE.FindAllStringSubmatch(body, -1)
			if len(charts) != 1 || charts[0][1] != "fusion.k" { // fusion.method is rrf throughout
				t.Fatalf("%d charts (%v), want one, of fusion.k:\n%s", len(charts), charts, body)
			}
			c := charts[0][3]
			circles := circleRE.FindAllStringSubmatch(c, -1)
			marked := map[string]int{}
			for _, m := range circles {
				marked[m[1]]++
			}
			var ticks []string
			for _, m := range tickRE.FindAllStringSubmatch(c, -1) {
				ticks = append(ticks, m[1])
			}
			line := 0
			if poly := polyRE.FindStringSubmatch(c); poly != nil {
				line = len(strings.Fields(poly[1]))
			}
			if len(circles) != len(tc.ks) || marked[" best"] != 1 || marked[" baseline"] != 1 || strings.Join(ticks, " ") != tc.ticks ||
				line != tc.line || charts[0][2] != tc.scale {
				t.Errorf("chart: %d points (%v), ticks %q, line of %d, scale %s; want %d (1 best, 1 baseline), %q, %d, %s:\n%s",
					len(circles), marked, ticks, line, charts[0][2], len(tc.ks), tc.ticks, tc.line, tc.scale, c)
			}
		})
	}
}

var gradeButtonRE = regexp.MustCompile(`<button name="pick" value="[^"|]+\|(\d+)"`)

// TestPoolPageScale: the pool page grades on the golden set's scale: a
// 0-4 set gets five buttons per document and a 4 is stored, a 5 refused.
func TestPoolPageScale(t *testing.T) {
	s, ds, _, csrf, pairs := judgeSetup(t)
	ds.Golden.Scale.Max = 4
	_, body := get(t, s, "/judge/pool?q="+pairs[0].Query)
	seen := map[string]bool{}
	for _, m := range gradeButtonRE.FindAllStringSubmatch(body, -1) {
		seen[m[1]] = true
	}
	if len(seen) != 5 || !seen["4"] || !strings.Contains(body, "keys: 0–4") {
		t.Errorf("grade buttons %v, want 0..4 and the keys 0–4 named", seen)
	}
	for grade, code := range map[string]int{"4": http.StatusSeeOther, "5": http.StatusBadRequest} {
		w := post(t, s, "/judge", url.Values{"csrf": {csrf}, "judge": {"Ada"}, "q": {pairs[0].Query}, "pool": {"1"}, "pick": {pairs[0].Doc + "|" + grade}})
		if w.Code != code {
			t.Errorf("grade %s: %d, want %d:\n%s", grade, w.Code, code, w.Body)
		}
	}
}

// TestJudgeUndoPerJudge: undo on the trial's judge page goes back to it,
// and takes back only the asking person's labels.
func TestJudgeUndoPerJudge(t *testing.T) {
	s, _, _, csrf, pairs := judgeSetup(t)
	for _, who := range []string{"Ada", "Bob"} {
		w := post(t, s, "/judge", url.Values{"csrf": {csrf}, "judge": {who}, "q": {pairs[0].Query}, "run": {"R"}, "trial": {"T"}, "pick": {pairs[0].Doc + "|1"}})
		if w.Code != http.StatusSeeOther {
			t.Fatalf("label by %s: %d", who, w.Code)
		}
	}
	for i, want := range []int{http.StatusSeeOther, http.StatusBadRequest} {
		w := post(t, s, "/judge/undo", url.Values{"csrf": {csrf}, "judge": {"Ada"}, "run": {"R"}, "trial": {"T"}})
		if w.Code != want {
			t.Fatalf("undo %d by Ada: %d, want %d:\n%s", i+1, w.Code, want, w.Body)
		}
		if loc := w.Header().Get("Location"); i == 0 && !strings.HasPrefix(loc, "/judge?") || i == 0 && !strings.Contains(loc, "run=R") {
			t.Errorf("undo went to %q, want the judge page of run R", loc)
		}
	}
	if w := post(t, s, "/judge/undo", url.Values{"csrf": {csrf}, "judge": {"Bob"}}); w.Code != http.StatusSeeOther {
		t.Errorf("Bob's undo after Ada's: %d, want his label taken back", w.Code)
	}
}

// TestServesOnlyRunsDir: a run outside the runs directory is served by no
// page, whether named by a URL-encoded absolute path or through a link
// inside the runs directory; the runs inside are.
func TestServesOnlyRunsDir(t *testing.T) {
	store, err := runs.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	inside := recordRun(t, store, 2)
	other, err := runs.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	outside := recordRun(t, other, 2)
	if err := os.Symlink(outside.Dir, filepath.Join(store.Dir, "20990101T000000Z-linked")); err != nil {
		t.Fatal(err)
	}
	s := newServer(t, ui.Options{Store: store})
	enc := url.PathEscape(outside.Dir)
	for _, tc := range []struct {
		target string
		code   int
		want   string
	}{
		{"/run/" + inside.ID(), 200, "Promotion history"},
		{"/run/" + enc, 404, ""},
		{"/run/" + enc + "/report", 404, ""},
		{"/run/20990101T000000Z-linked", 404, ""},
		{"/run/20990101T000000Z-linked/report", 404, ""},
		{"/compare?a=" + url.QueryEscape(outside.Dir+":k=1") + "&b=" + inside.ID() + ":k=1", 400, "the UI serves only the runs directory"},
		{"/compare?a=20990101T000000Z-linked:k=1&b=" + inside.ID() + ":k=1", 404, "no run"},
		{"/microscope?run=" + url.QueryEscape(outside.Dir), 400, "the UI serves only the runs directory"},
	} {
		code, body := get(t, s, tc.target)
		if code != tc.code || !strings.Contains(body, tc.want) {
			t.Errorf("GET %s: %d, want %d with %q:\n%.600s", tc.target, code, tc.code, tc.want, body)
		}
		if tc.code != 200 || tc.want != "Promotion history" {
			if strings.Contains(body, "Promotion history") || strings.Contains(body, "<svg") {
				t.Errorf("GET %s served the outside run", tc.target)
			}
		}
	}
}
