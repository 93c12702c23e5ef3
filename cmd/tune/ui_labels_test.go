package main_test

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// uiSameLabel relabels, on the judge page of base, a document of query
// the golden set grades (confirming the override), then restarts the app
// (a second `tune ui` on the same settings) and checks that its judge
// page and its microscope show the same grade for that document (the
// golden set's: it wins over labels) and for labelled, an unjudged hit a
// person labelled: one precedence for every page, surviving a restart.
func uiSameLabel(t *testing.T, ctx context.Context, e *sweepEnv, base, id, query, labelled string) {
	t.Helper()
	do := func(what string, steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		browserDo(t, ctx, "same label: "+what, steps...)
	}
	eval := func(what, js string) string {
		t.Helper()
		return browserText(t, ctx, what, js)
	}
	judgeURL := "/judge?run=" + id + "&trial=baseline&q=" + query
	do("open judge", chromedp.Navigate(base+judgeURL), chromedp.WaitVisible(chromedp.CSS("#judgeform")))
	gold := eval("a gold-judged hit", `(document.querySelector('.doc[data-gold]') || {dataset: {doc: ''}}).dataset.doc`)
	if gold == "" {
		t.Fatalf("query %s has no gold-judged hit in the baseline's top 10", query)
	}
	goldGrade := eval("its grade", `document.querySelector('.doc[data-gold]').dataset.gold`)
	other := "0"
	if goldGrade == "0" {
		other = "1"
	}
	sel := `.doc[data-doc="` + gold + `"]`
	do("relabel the gold document", chromedp.Action[chromedp.Void](func(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
		_, err := chromedp.Evaluate[bool](`window.confirm = () => true, true`)(ctx, tg)
		return chromedp.Void{}, err
	}), chromedp.Click(chromedp.CSS(sel+` button[data-grade="`+other+`"]`)), chromedp.WaitVisible(chromedp.CSS(sel+` .ok`)))
	if by := eval("who graded it", `document.querySelector(`+strconv.Quote(sel)+`).textContent`); !strings.Contains(by, "by golden set") {
		t.Errorf("after a person's L%s, the gold document %s reads %q: the golden set's grade should still win", other, gold, by)
	}
	restarted := startUI(t, e)
	judgeGrade := func(doc string) string {
		return eval("judge grade of "+doc, `document.querySelector('.doc[data-doc="`+doc+`"]').dataset.grade`)
	}
	microGrade := func(doc string) string {
		return eval("microscope grade of "+doc, `(() => { const r = document.querySelector('#fused tr[data-doc="`+doc+`"]'); if (!r) return "absent";
			const g = Array.from(r.querySelectorAll('span')).find(s => /^g[0-9q]$/.test(s.className)); return g ? g.textContent.replace('L', '') : "none" })()`)
	}
	do("judge page after a restart", chromedp.Navigate(restarted+judgeURL), chromedp.WaitVisible(chromedp.CSS("#judgeform")))
	jGold, jLabelled := judgeGrade(gold), judgeGrade(labelled)
	do("microscope after a restart", chromedp.Navigate(restarted+"/microscope?run="+id+"&trial=baseline&q="+query), chromedp.WaitVisible(chromedp.CSS("#fused")))
	mGold, mLabelled := microGrade(gold), microGrade(labelled)
	if jGold != goldGrade || mGold != goldGrade {
		t.Errorf("after a restart, gold document %s: judge page L%s, microscope L%s, want the golden set's L%s on both", gold, jGold, mGold, goldGrade)
	}
	if jLabelled != "2" || mLabelled != "2" {
		t.Errorf("after a restart, labelled document %s: judge page L%s, microscope L%s, want the person's L2 on both", labelled, jLabelled, mLabelled)
	}
}
