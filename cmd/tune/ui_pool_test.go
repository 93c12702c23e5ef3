package main_test

import (
	"context"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/fusiontune/fusiontune/tuner/judging/labels"
)

// uiPool drives the pool page of the app at base (started with --pool,
// the judge's name already remembered as "Ada Tester"): it picks a query
// with two unlabelled documents, grades them 1 and 2 by key, finds both in
// the label store, reloads and sees the pool's coverage grow by two, then
// undoes the second with u.
func uiPool(t *testing.T, ctx context.Context, base, dir string, shot func(string)) {
	t.Helper()
	do := func(what string, steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, steps...); err != nil {
			t.Fatalf("pool page: %s: %v", what, err)
		}
	}
	num := func(sel string) int {
		t.Helper()
		s := browserGet(t, ctx, "text of "+sel, chromedp.TextContent(chromedp.CSS(sel)))
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil {
			t.Fatalf("%s: %q: %v", sel, s, err)
		}
		return n
	}
	do("open", chromedp.Navigate(base+"/judge/pool"), chromedp.WaitVisible(chromedp.CSS("#judgeform")))
	// A query with two unlabelled pairs: the table's "labelled/total".
	query := browserGet(t, ctx, "a query with two unlabelled pairs", chromedp.Evaluate[string](`(Array.from(document.querySelectorAll('#queries tr[data-q]')).find(r => {
		const [l, n] = r.cells[1].textContent.split('/').map(Number); return n - l >= 2 }) || {dataset: {q: ''}}).dataset.q`))
	if query == "" {
		t.Fatal("the pool has no query with two unlabelled pairs")
	}
	do("open "+query, chromedp.Navigate(base+"/judge/pool?q="+query), chromedp.WaitVisible(chromedp.CSS("#judgeform")))
	before, total := num("#pool-labelled"), num("#pool-total")
	docs := browserGet(t, ctx, "unlabelled docs", chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll('.doc[data-grade="-1"]')).map(d => d.dataset.doc)`))
	if len(docs) < 2 {
		t.Fatalf("query %s shows %d unlabelled documents", query, len(docs))
	}
	shot("8-pool")
	// Each key waits for the page's script to frame a document (.doc.focus):
	// a key sent while the new page loads would be lost.
	do("grade 1 by key", chromedp.WaitVisible(chromedp.CSS(".doc.focus")), chromedp.KeyEvent("1"), chromedp.WaitVisible(chromedp.CSS(`.doc[data-doc="`+docs[0]+`"][data-grade="1"]`)))
	do("grade 2 by key", chromedp.WaitVisible(chromedp.CSS(".doc.focus")), chromedp.KeyEvent("2"), chromedp.WaitVisible(chromedp.CSS(`.doc[data-doc="`+docs[1]+`"][data-grade="2"]`)))
	latest := func() map[string]int {
		t.Helper()
		st, err := labels.Open(context.Background(), filepath.Join(dir, "labels.db"))
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		ls, err := st.Latest(context.Background(), "demo")
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]int{} // this query's labels by Ada Tester (the judge page gave some too)
		for _, l := range ls {
			if l.Query == query && l.Judge == "Ada Tester" && l.Source == labels.SourceHuman {
				got[l.Doc] = l.Grade
			}
		}
		return got
	}
	if got := latest(); got[docs[0]] != 1 || got[docs[1]] != 2 {
		t.Errorf("label store holds %v for %s, want %s:1 and %s:2", got, query, docs[0], docs[1])
	}
	do("reload", chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS("#judgeform")))
	if after, n := num("#pool-labelled"), num("#pool-total"); after != before+2 || n != total {
		t.Errorf("pool coverage after labelling two: %d of %d, want %d of %d", after, n, before+2, total)
	}
	row := browserGet(t, ctx, "query row", chromedp.TextContent(chromedp.CSS(`#queries tr[data-q="`+query+`"] td.num`)))
	shot("8-pool-after")
	do("undo by key", chromedp.WaitVisible(chromedp.CSS(".doc.focus")), chromedp.KeyEvent("u"), chromedp.WaitVisible(chromedp.CSS(`.doc[data-doc="`+docs[1]+`"][data-grade="-1"]`)))
	got := latest()
	if _, second := got[docs[1]]; got[docs[0]] != 1 || second {
		t.Errorf("after undo the label store holds %v for %s, want %s:1 and no %s", got, query, docs[0], docs[1])
	}
	if after := num("#pool-labelled"); after != before+1 {
		t.Errorf("pool coverage after undo: %d, want %d (row was %s)", after, before+1, row)
	}
}

// TestUIPoolBadFile: a bad pool file is an input error naming the file
// and line (exit 2) before the app serves.
func TestUIPoolBadFile(t *testing.T) {
	e := newSweepEnv(t, sweepSettings+"labels: labels.db\n")
	e.write("pool.jsonl", `{"dataset":"demo","query":"q001","doc":"kb-0002","priority":1,"trials":1,"best_rank":1}
{"dataset":"demo","query":"q001","doc":"kb-0003","priority":1,"trials":1,"best_rank":1,"extra":1}
{"dataset":"demo","query":"q-none","doc":"kb-0003","priority":1,"trials":1,"best_rank":1}
`)
	_, stderr, code := e.run("ui", "--listen", "127.0.0.1:0", "--pool", "pool.jsonl")
	if code != 2 || !strings.Contains(stderr, "pool.jsonl:2:") || strings.Contains(stderr, "listening") {
		t.Errorf("exit %d, want 2 naming pool.jsonl:2 before listening:\n%s", code, stderr)
	}
	e.write("pool.jsonl", `{"dataset":"demo","query":"q-none","doc":"kb-0003","priority":1,"trials":1,"best_rank":1}`+"\n")
	_, stderr, code = e.run("ui", "--listen", "127.0.0.1:0", "--pool", "pool.jsonl")
	if code != 2 || !strings.Contains(stderr, "pool.jsonl:1: query \"q-none\" is not in the golden set") {
		t.Errorf("unknown query: exit %d, want 2 naming pool.jsonl:1:\n%s", code, stderr)
	}
	// --dataset-id picks the settings' dataset a pool belongs to (a
	// harvested set's): an id the settings lack is named.
	_, stderr, code = e.run("ui", "--listen", "127.0.0.1:0", "--dataset-id", "harvested", "--pool", "pool.jsonl")
	if code != 2 || strings.Contains(stderr, "unknown flag") || !strings.Contains(stderr, `"harvested"`) {
		t.Errorf("--dataset-id harvested without such a dataset: exit %d, want 2 naming it:\n%s", code, stderr)
	}
}
