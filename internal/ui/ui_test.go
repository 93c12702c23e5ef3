package ui_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/fusiontune/fusiontune/experiments"
	"github.com/fusiontune/fusiontune/experiments/labels"
	"github.com/fusiontune/fusiontune/internal/ui"
	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner"
)

// recordRun records a run of n trials (trial i: fusion.k i+1, primary
// rising and falling so that rank and trial order differ) with a
// leaderboard, as a sweep leaves it.
func recordRun(tb testing.TB, store *runs.Store, n int) *runs.Run {
	tb.Helper()
	run, err := store.Create(runs.Manifest{Experiments: "x", ExperimentName: "grid.json", Backend: "embedded", Seed: 1, Tool: "tune"}, time.Unix(1700000000, 0))
	if err != nil {
		tb.Fatal(err)
	}
	var trials []runs.TrialRecord
	for i := range n {
		p := 0.3 + 0.1*float64((i*7)%n)/float64(n)
		tr := runs.TrialRecord{Index: i, Name: fmt.Sprintf("k=%d", i+1), Params: map[string]any{"fusion.k": i + 1, "fusion.method": "rrf"},
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

var rowRE = regexp.MustCompile(`data-trial="([^"]+)"`)

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
		{"/run/" + run.ID() + "?cats=1", 200, `<th class="num">direct</th>`},
		{"/run/" + run.ID() + "/report", 200, "<svg"},
		{"/compare", 200, run.ID() + ":k=1"},
		{"/compare?a=" + run.ID() + ":k=1&b=" + run.ID() + ":k=2", 200, "Kendall τ"},
		{"/compare?a=../x:k=1&b=" + run.ID() + ":k=2", 200, "give a run id"},
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
			t.Errorf("GET %s: %d, want %d with %q:\n%.600s", tc.target, code, tc.code, tc.want, body)
		}
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
	ds, err := tuner.OpenDataset(experiments.DatasetConfig{}, "", dir) // the demo
	if err != nil {
		t.Fatal(err)
	}
	docs, err := ui.CorpusDocs(ds.Corpus)
	if err != nil {
		t.Fatal(err)
	}
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
