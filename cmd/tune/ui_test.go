package main_test

import (
	"context"
	"flag"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fusiontune/fusiontune/tuner/replay"

	"github.com/chromedp/chromedp"

	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner/judging/labels"
)

var uiShots = flag.String("ui.shots", "", "save the tune ui screenshots in this directory (default: a new temporary directory, kept)")

// uiGrid is a replayed RRF grid on the demo: its trials differ only in
// query-time settings, so every one but the collecting trial is replayed.
const uiGrid = `{
  "baseline": {"params": {"fusion.method": "rrf", "fusion.k": 60}},
  "grid": {"fusion.k": [1, 10, 200], "fusion.weights.bm25": [0.5, 1]}
}`

// chromiumPath finds Debian's chromium (or a chrome binary); the test
// skips without one, and fails under CI, where .ci/run installs it.
func chromiumPath(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("chromium not installed, and CI is set: .ci/run should have installed it")
	}
	t.Skip("chromium not installed (apt-get install chromium; .ci/run installs it)")
	return ""
}

// startUI starts `tune ui` (with the flags extra) on a free loopback port
// in e's directory and returns its base URL; it is interrupted when the
// test ends.
func startUI(t *testing.T, e *sweepEnv, extra ...string) string {
	t.Helper()
	ready := filepath.Join(e.dir, "ui.ready")
	cmd, _, stderr := e.command(append([]string{"ui", "--listen", "127.0.0.1:0", "--ready-file", ready}, extra...)...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGINT)
		cmd.Wait()
	})
	deadline := time.Now().Add(time.Minute)
	for {
		if data, err := os.ReadFile(ready); err == nil {
			return "http://" + strings.TrimSpace(string(data))
		}
		if time.Now().After(deadline) {
			t.Fatalf("tune ui not ready in time:\n%s", stderr)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// recorded is a trial's recorded per-query results by query id.
func recorded(t *testing.T, dir, trial string) map[string]runs.QueryResult {
	t.Helper()
	run, err := runs.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	replay.EnsureDeriver(run)
	e, err := runs.TrialOf(run, trial)
	if err != nil {
		t.Fatal(err)
	}
	rs, err := run.QueryResults(e.Index)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]runs.QueryResult{}
	for _, r := range rs {
		out[r.QueryID] = r
	}
	return out
}

// browserGet runs a browser action that returns a value.
func browserGet[T any](t *testing.T, ctx context.Context, what string, a chromedp.Action[T]) T {
	t.Helper()
	v, err := chromedp.Run(ctx, a)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	return v
}

// browserDo runs browser steps, failing the test with what on an error.
func browserDo(t *testing.T, ctx context.Context, what string, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(ctx, steps...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// browserText evaluates js, a string expression, in the page.
func browserText(t *testing.T, ctx context.Context, what, js string) string {
	t.Helper()
	return browserGet(t, ctx, what, chromedp.Evaluate[string](js))
}

func reversed(xs []float64) []float64 {
	out := slices.Clone(xs)
	slices.Reverse(out)
	return out
}

func topIDs(r runs.QueryResult) []string {
	var out []string
	for _, d := range r.Top {
		out = append(out, d.DocID)
	}
	return out
}

// TestUIInChromium drives `tune ui` in headless Chromium on a demo run it
// records: the runs page lists the run; the run page's leaderboard sorts
// by primary; a comparison opens; the microscope's fused list for a query
// changes when RRF k changes and then equals what replay recorded for the
// trial with that k; two unjudged hits labelled on the judge page are in
// the label store and still shown after a reload; on the pool page (a pool
// `tune judge pool` wrote) two documents labelled by key are in the store
// and counted in the coverage after a reload, and u undoes the second.
// Each page's screenshot is saved in the folder the test logs.
func TestUIInChromium(t *testing.T) {
	bin := chromiumPath(t)
	e := newSweepEnv(t, sweepSettings+"labels: labels.db\n")
	exp := e.write("grid.json", uiGrid)
	dir, _, _ := e.newRun(t, "--experiments", exp, "--mode", "replay", "--split", "all")
	id := filepath.Base(dir)
	e.mustRun(0, "judge", "pool", id, "--out", "pool.jsonl")
	base := startUI(t, e, "--pool", "pool.jsonl")

	shots := *uiShots
	if shots == "" {
		var err error
		if shots, err = os.MkdirTemp("", "tune-ui-shots-"); err != nil {
			t.Fatal(err)
		}
	} else if err := os.MkdirAll(shots, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshots in %s", shots)

	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(bin), chromedp.NoSandbox,
		chromedp.WindowSize(1280, 800), chromedp.UserDataDir(t.TempDir()), chromedp.Flag("disable-quic", true))
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelA()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	ctx, cancelT := context.WithTimeout(ctx, 3*time.Minute)
	defer cancelT()
	do := func(what string, steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, steps...); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	// shot saves the whole page and glance the first screen (1280×800).
	// Each page shot is checked by axe-core too.
	shot := func(name string) {
		t.Helper()
		png := browserGet(t, ctx, "screenshot "+name, chromedp.FullScreenshot(100))
		if err := os.WriteFile(filepath.Join(shots, name+".png"), png, 0o644); err != nil {
			t.Fatal(err)
		}
		axeCheck(t, ctx, name)
	}
	glance := func(name string) {
		t.Helper()
		png := browserGet(t, ctx, "screenshot "+name, chromedp.CaptureScreenshot())
		if err := os.WriteFile(filepath.Join(shots, name+".png"), png, 0o644); err != nil {
			t.Fatal(err)
		}
		axeCheck(t, ctx, name)
	}
	texts := func(sel string) []string {
		t.Helper()
		return browserGet(t, ctx, "read "+sel, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll(`+strconv.Quote(sel)+`)).map(e => e.textContent.trim())`))
	}
	text := func(sel string) string {
		t.Helper()
		return browserGet(t, ctx, "text of "+sel, chromedp.TextContent(chromedp.CSS(sel)))
	}
	// follow navigates to the href of the link sel selects.
	follow := func(sel string) {
		t.Helper()
		href := browserGet(t, ctx, "href of "+sel, chromedp.Evaluate[string](`document.querySelector(`+strconv.Quote(sel)+`).href`))
		do("follow "+sel, chromedp.Navigate(href))
	}

	// Runs page.
	do("runs page", chromedp.Navigate(base+"/"))
	if runsText := text("#runs"); !strings.Contains(runsText, id) || !strings.Contains(runsText, "demo") {
		t.Fatalf("runs page lacks run %s of dataset demo:\n%s", id, runsText)
	}
	shot("1-runs")

	// Run page: sort the leaderboard by primary, descending then ascending.
	follow(`a[href="/run/` + id + `"]`)
	do("run page", chromedp.WaitVisible(chromedp.CSS("#leaderboard")))
	if d := browserGet(t, ctx, "decision lines", chromedp.Evaluate[string](`document.querySelector('#decision').textContent`)); !strings.Contains(d, "baseline") {
		t.Errorf("no decision line on the run page: %q", d)
	}
	primaries := func() []float64 {
		var out []float64
		for _, s := range texts("#leaderboard tr[data-trial] td.primary") {
			v, err := strconv.ParseFloat(s, 64)
			if err != nil {
				t.Fatalf("primary cell %q: %v", s, err)
			}
			out = append(out, v)
		}
		return out
	}
	follow(`a[data-col="primary"]`)
	desc := primaries()
	follow(`a[data-col="primary"]`)
	asc := primaries()
	if len(asc) != 7 || !slices.IsSorted(asc) || slices.IsSorted(desc) || !slices.Equal(asc, reversed(desc)) {
		t.Errorf("sorting by primary: first click %v, second %v", desc, asc)
	}
	var params []string
	for _, caption := range texts("#paramcharts figure[data-param] figcaption") {
		params = append(params, strings.Fields(caption)[0]) // "fusion.k (log axis)"
	}
	if !slices.Equal(params, []string{"fusion.k", "fusion.weights.bm25"}) {
		t.Errorf("per-parameter charts for %v, want fusion.k and fusion.weights.bm25", params)
	} else if n := len(texts(`#paramcharts figure[data-param="fusion.k"] circle`)); n != 7 {
		t.Errorf("the fusion.k chart has %d points, want the 7 trials'", n)
	}
	shot("2-run")

	// Compare: the row of trial k=1,w.bm25=1 against the baseline.
	do("open compare", chromedp.Click(chromedp.CSS(`tr[data-trial="k=1,w.bm25=1"] a.cmp`)), chromedp.WaitVisible(chromedp.CSS("#paired")))
	if d := text("#diff"); !strings.Contains(d, "Kendall τ") || !strings.Contains(d, "Jaccard@10") {
		t.Errorf("comparison's ranking diff: %q", d)
	}
	if h := text("#compare-head"); !strings.Contains(h, "k=1,w.bm25=1") {
		t.Errorf("comparison head: %q", h)
	}
	// Side by side: the parameter diff, every metric paired, the
	// per-query chart, and both top-10 lists of the queries changed most.
	if p := text("#paramdiff"); !strings.Contains(p, "fusion.k 60 → 1") {
		t.Errorf("parameter diff: %q", p)
	}
	if n := len(texts("#paired tbody tr")); n < 5 {
		t.Errorf("%d rows in the paired table, want the primary and every metric", n)
	}
	if l := browserGet(t, ctx, "per-query chart", chromedp.Evaluate[string](`document.querySelector('#deltas svg').getAttribute('aria-label')`)); !strings.Contains(l, "better") {
		t.Errorf("per-query chart: %q", l)
	}
	if n := browserGet(t, ctx, "side-by-side lists", chromedp.Evaluate[int](`Math.min(...Array.from(document.querySelectorAll('section.side')).map(s => s.querySelectorAll('ol.list').length))`)); n != 2 {
		t.Errorf("side-by-side sections with %d lists, want 2 each", n)
	}
	shot("3-compare")
	// The trial page of the compared trial.
	do("trial page", chromedp.Navigate(base+"/run/"+id+"/trial/"+url.PathEscape("k=1,w.bm25=1")), chromedp.WaitVisible(chromedp.CSS("#scorecard")))
	if n := len(texts("#worst tbody tr")); n != 10 {
		t.Errorf("the trial page lists %d worst queries, want 10", n)
	}
	glance("3-trial")

	// Microscope: a query whose recorded ranking differs between the
	// baseline (k 60) and k=1; changing k to 1 must give replay's list.
	baseline, k1 := recorded(t, dir, "baseline"), recorded(t, dir, "k=1,w.bm25=1")
	query := ""
	for _, qid := range slices.Sorted(maps.Keys(baseline)) {
		a, b := topIDs(baseline[qid]), topIDs(k1[qid])
		if !slices.Equal(a[:min(len(a), 10)], b[:min(len(b), 10)]) {
			query = qid
			break
		}
	}
	if query == "" {
		t.Fatal("no query ranks differently under k 60 and k 1")
	}
	fusedDocs := func() []string { // the rows' documents (the cell also holds title and snippet)
		return browserGet(t, ctx, "fused docs", chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll('#fused tr[data-doc]')).map(r => r.dataset.doc)`))
	}
	do("open microscope", chromedp.Navigate(base+"/microscope?run="+id+"&trial=baseline&q="+query), chromedp.WaitVisible(chromedp.CSS("#fused")))
	before, labelsBefore := fusedDocs(), text("#labelseq")
	if !slices.Equal(before, topIDs(baseline[query])) || labelsBefore != baseline[query].Labels {
		t.Errorf("microscope on the baseline, %s:\n%v %s\nreplay recorded:\n%v %s", query, before, labelsBefore, topIDs(baseline[query]), baseline[query].Labels)
	}
	// The metrics table: the trial's recorded scores beside the live ones,
	// the same under the trial's own settings.
	metricRows := func() [][]string {
		return browserGet(t, ctx, "metrics table", chromedp.Evaluate[[][]string](`Array.from(document.querySelectorAll('#metrics tbody tr')).map(r => Array.from(r.cells).map(c => c.textContent))`))
	}
	rows := metricRows()
	if len(rows) < 2 || rows[0][0] != "primary" || rows[0][2] != fmt.Sprintf("%.4f", baseline[query].Primary) {
		t.Errorf("microscope metrics %q: want the primary first, beside the recorded %.4f", rows, baseline[query].Primary)
	}
	for _, r := range rows {
		if len(r) != 4 || r[1] != r[2] || r[3] != "+0.0000" {
			t.Errorf("microscope metric %q under the trial's own settings: want now = recorded, Δ +0.0000", r)
		}
	}
	// Three columns: fused, bm25 and dense side by side at 1280 px.
	if tops := browserGet(t, ctx, "column tops", chromedp.Evaluate[[]float64](`Array.from(document.querySelectorAll('#lists > div')).map(d => d.getBoundingClientRect().top)`)); len(tops) != 3 || tops[0] != tops[1] || tops[1] != tops[2] {
		t.Errorf("the microscope's lists start at %v px: want three side by side", tops)
	}
	glance("4-microscope-k60")
	// The old page is marked, so that waiting for the re-fused page cannot
	// pass on it.
	do("set k to 1", chromedp.SetValue(chromedp.CSS("#rrfk"), "1"),
		chromedp.Action[chromedp.Void](func(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
			_, err := chromedp.Evaluate[bool](`window.oldPage = true`)(ctx, tg)
			return chromedp.Void{}, err
		}),
		chromedp.Click(chromedp.CSS("#refuse")))
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(50 * time.Millisecond) {
		ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`!window.oldPage && document.readyState === "complete" && document.querySelector('#labelseq') !== null && document.querySelector('#rrfk').getAttribute("value") === "1"`))
		if err == nil && ok {
			break // errors: the page is navigating
		}
		if time.Now().After(deadline) {
			t.Fatalf("no re-fused page after a minute (last error %v)", err)
		}
	}
	after, labelsAfter := fusedDocs(), text("#labelseq")
	if slices.Equal(before, after) {
		t.Errorf("the fused list did not change with k 1: %v", after)
	}
	if !slices.Equal(after, topIDs(k1[query])) || labelsAfter != k1[query].Labels {
		t.Errorf("microscope with k 1, %s:\n%v %s\nreplay recorded for k=1,w.bm25=1:\n%v %s", query, after, labelsAfter, topIDs(k1[query]), k1[query].Labels)
	}
	if primary, want := text("#qprimary"), strconv.FormatFloat(k1[query].Primary, 'f', 4, 64); primary != want {
		t.Errorf("microscope primary %s, replay recorded %s", primary, want)
	}
	if rows := metricRows(); len(rows) == 0 || rows[0][3] != fmt.Sprintf("%+.4f", k1[query].Primary-baseline[query].Primary) {
		t.Errorf("microscope metrics with k 1 %q: want Δ primary %+.4f against the baseline's record", rows, k1[query].Primary-baseline[query].Primary)
	}
	shot("5-microscope-k1")

	// Judge: label two unjudged hits of the query in the baseline's top 10,
	// one by clicking, one by the keyboard.
	do("open judge", chromedp.Navigate(base+"/judge?run="+id+"&trial=baseline&q="+query), chromedp.WaitVisible(chromedp.CSS("#judgeform")))
	docs := browserGet(t, ctx, "unjudged docs", chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll('.doc[data-grade="-1"]')).map(d => d.dataset.doc)`))
	if len(docs) < 2 {
		t.Fatalf("query %s has %d unjudged hits in the baseline's top 10", query, len(docs))
	}
	shot("6-judge")
	do("label by click", chromedp.SendKeys(chromedp.CSS("#judge"), "Ada Tester"),
		chromedp.Click(chromedp.CSS(`.doc[data-doc="`+docs[0]+`"] button[data-grade="2"]`)),
		chromedp.WaitVisible(chromedp.CSS(`.doc[data-doc="`+docs[0]+`"][data-grade="2"]`)))
	// The next unjudged document is framed; the name is remembered.
	do("label by key", chromedp.WaitVisible(chromedp.CSS(".doc.focus")), chromedp.KeyEvent("3"), chromedp.WaitVisible(chromedp.CSS(`.doc[data-doc="`+docs[1]+`"][data-grade="3"]`)))
	st, err := labels.Open(context.Background(), filepath.Join(e.dir, "labels.db"))
	if err != nil {
		t.Fatal(err)
	}
	stored, err := st.Latest(context.Background(), "demo")
	st.Close()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for _, l := range stored {
		if l.Query != query || l.Judge != "Ada Tester" || l.Source != labels.SourceHuman {
			t.Errorf("stored label %+v", l)
		}
		got[l.Doc] = l.Grade
	}
	if len(stored) != 2 || got[docs[0]] != 2 || got[docs[1]] != 3 {
		t.Errorf("label store holds %v, want %s:2 and %s:3", got, docs[0], docs[1])
	}
	do("reload", chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS("#judgeform")))
	first := text(`.doc[data-doc="` + docs[0] + `"]`)
	g0 := browserGet(t, ctx, "grade 0", chromedp.AttributeValue(chromedp.CSS(`.doc[data-doc="`+docs[0]+`"]`), "data-grade"))
	g1 := browserGet(t, ctx, "grade 1", chromedp.AttributeValue(chromedp.CSS(`.doc[data-doc="`+docs[1]+`"]`), "data-grade"))
	if g0.Value != "2" || g1.Value != "3" || !strings.Contains(first, "by Ada Tester") {
		t.Errorf("after a reload: grades %q %q; first document %q", g0.Value, g1.Value, first)
	}
	shot("7-judge-after")
	uiSameLabel(t, ctx, e, base, id, query, docs[0])
	uiPool(t, ctx, base, e.dir, shot)

	// Dataset page.
	do("dataset page", chromedp.Navigate(base+"/dataset"))
	if cats := text("#categories"); !strings.Contains(cats, "direct") {
		t.Errorf("dataset page's categories: %s", cats)
	}
	shot("9-dataset")
	uiStudyRun(t, ctx, e, base, glance)
}

// TestUIServesOnlyRunsDirProcess: the real tune ui serves a run of its
// runs directory, and answers 404 for a run outside it, whether named by
// a URL-encoded absolute path or by a directory name where it was started.
func TestUIServesOnlyRunsDirProcess(t *testing.T) {
	e := newSweepEnv(t, sweepSettings)
	exp := e.write("exp.json", threeTrials)
	inside, _, _ := e.newRun(t, "--experiments", exp)
	moved, _, _ := e.newRun(t, "--experiments", exp)
	outside := filepath.Join(e.dir, filepath.Base(moved)) // beside runs/, where tune ui starts
	if err := os.Rename(moved, outside); err != nil {
		t.Fatal(err)
	}
	base := startUI(t, e)
	for _, tc := range []struct {
		path string
		code int
	}{
		{"/run/" + filepath.Base(inside), 200},
		{"/run/" + filepath.Base(inside) + "/report", 200},
		{"/run/" + url.PathEscape(outside), 404},
		{"/run/" + url.PathEscape(outside) + "/report", 404},
		{"/run/" + filepath.Base(outside), 404},
		{"/run/" + filepath.Base(outside) + "/report", 404},
	} {
		resp, err := http.Get(base + tc.path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.code {
			t.Errorf("GET %s: %d, want %d\n%.400s", tc.path, resp.StatusCode, tc.code, body)
		}
	}
}
