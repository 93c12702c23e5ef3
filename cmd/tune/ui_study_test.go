package main_test

import (
	"context"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// uiStudy is a 200-trial TPE study on the demo with pruning: many
// sampled values, and pruned trials.
const uiStudy = `{
  "seed": 5,
  "baseline": {"name": "baseline", "params": {"fusion.method": "rrf", "fusion.k": 60}},
  "sampler": "tpe",
  "trials": 200,
  "space": {
    "fusion.k": {"type": "int", "low": 5, "high": 100},
    "fusion.weights.bm25": {"type": "float", "low": 0, "high": 1},
    "fusion.method": {"type": "categorical", "choices": ["rrf", "linear"]}
  },
  "pruning": {"fraction": 0.25, "reduction_factor": 2}
}`

// widestJS names the elements whose right edge is the page's: what makes
// it scroll sideways.
const widestJS = `(() => { const w = document.documentElement.scrollWidth; return Array.from(document.querySelectorAll("body *")).filter(e => Math.abs(e.getBoundingClientRect().right - w) < 2)
	.slice(0, 6).map(e => e.tagName.toLowerCase() + (e.id ? "#" + e.id : "") + (e.className && typeof e.className === "string" ? "." + e.className.split(" ").join(".") : "") + " in " + e.parentElement.tagName.toLowerCase() + "." + e.parentElement.className).join(", ") })()`

// uiStudyRun records uiStudy live and checks its run page at 1280×800:
// the summary card with the verdict and the apply command is on the
// first screen; the page never scrolls sideways; whatever column the
// leaderboard is sorted by, no pruned trial ranks above a complete one;
// the optimization history and every numeric parameter chart have
// numeric tick labels in increasing order left to right, the categorical
// parameter alone categories.
func uiStudyRun(t *testing.T, ctx context.Context, e *sweepEnv, base string, glance func(string)) {
	t.Helper()
	exp := e.write("study.json", uiStudy)
	dir, _, _ := e.newRun(t, "--experiments", exp, "--mode", "live", "--split", "all")
	id := filepath.Base(dir)
	do := func(what string, steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		browserDo(t, ctx, "study: "+what, steps...)
	}
	eval := func(what, js string) string {
		t.Helper()
		return browserText(t, ctx, what, js)
	}
	open := func(query string) {
		t.Helper()
		do("open the run page "+query, chromedp.Navigate(base+"/run/"+id+query), chromedp.WaitVisible(chromedp.CSS("#leaderboard")))
		if w := eval("page width", `String(document.documentElement.scrollWidth) + " " + String(window.innerWidth)`); func() bool {
			f := strings.Fields(w)
			sw, _ := strconv.Atoi(f[0])
			iw, _ := strconv.Atoi(f[1])
			return sw > iw
		}() {
			t.Errorf("run page %s scrolls sideways at 1280 px: scroll width, window width %s; widest: %s", query, w, eval("the widestJS elements", widestJS))
		}
		// Statuses top to bottom: every complete trial before any pruned one.
		statuses := strings.Fields(eval("statuses", `Array.from(document.querySelectorAll('#leaderboard tr[data-trial]')).map(r => r.dataset.status).join(" ")`))
		if len(statuses) != 201 {
			t.Fatalf("run page %s: %d rows, want 201", query, len(statuses))
		}
		if i := slices.Index(statuses, "pruned"); i < 0 || slices.Contains(statuses[i:], "ok") {
			t.Errorf("run page %s: a pruned trial ranks above a complete one (or none is pruned): %v", query, statuses)
		}
	}
	open("")
	if b := eval("summary", `String(document.querySelector('#summary').getBoundingClientRect().bottom)`); func() bool {
		v, _ := strconv.ParseFloat(b, 64)
		return v > 800 || v <= 0
	}() {
		t.Errorf("the summary card ends at %s px: not on the first screen", b)
	}
	summary := eval("summary text", `document.querySelector('#summary').textContent`)
	for _, want := range []string{"Verdict:", "keep the baseline", "Best trial:", "tune apply " + id, "fusion.k = "} {
		if !strings.Contains(summary, want) {
			t.Errorf("summary card lacks %q:\n%s", want, summary)
		}
	}
	if open := eval("how to read this", `String(document.querySelector('#howto').open)`); open != "false" {
		t.Errorf("the explanations are not folded away (open %s)", open)
	}
	glance("10-study-run")
	// Sorted ascending by primary, the pruned trials' lower partial
	// scores would come first: they must still follow every complete one.
	for _, q := range []string{"?sort=primary&desc=1", "?sort=primary&desc=0", "?sort=NDCG%4010&desc=1", "?sort=fusion.k&desc=0"} {
		open(q)
	}
	// Axes: numbers in order on every numeric chart.
	charts := strings.Fields(eval("charts", `Array.from(document.querySelectorAll('#paramcharts figure[data-param]')).map(f => f.dataset.param + "=" + f.dataset.scale).join(" ")`))
	if !slices.Equal(charts, []string{"fusion.k=linear", "fusion.method=categories", "fusion.weights.bm25=linear"}) {
		t.Errorf("parameter charts and scales %v", charts)
	}
	for _, sel := range []string{`#paramcharts figure[data-param="fusion.k"] svg`, `#paramcharts figure[data-param="fusion.weights.bm25"] svg`, `#history svg`} {
		ticks := strings.Fields(eval("ticks of "+sel, `Array.from(document.querySelector(`+strconv.Quote(sel)+`).querySelectorAll('text.tick')).map(t => t.textContent + "@" + t.getAttribute("x")).join(" ")`))
		var vals, xs []float64
		for _, tk := range ticks {
			v, x, _ := strings.Cut(tk, "@")
			fv, err := strconv.ParseFloat(v, 64)
			if err != nil {
				t.Errorf("%s: tick %q is not a number", sel, v)
			}
			fx, _ := strconv.ParseFloat(x, 64)
			vals, xs = append(vals, fv), append(xs, fx)
		}
		if len(vals) < 3 || !slices.IsSorted(vals) || !slices.IsSorted(xs) {
			t.Errorf("%s: ticks %v: want three or more numbers increasing left to right", sel, ticks)
		}
	}
	// The heatmap of the two numeric parameters: labels read as numbers,
	// increasing rightwards and upwards; the study's importance names its
	// method; every chart has its data table.
	if hm := eval("heatmaps", `Array.from(document.querySelectorAll('#heatmaps figure')).map(f => f.dataset.x + "×" + f.dataset.y).join(" ")`); hm != "fusion.k×fusion.weights.bm25" {
		t.Errorf("heatmaps %q, want fusion.k×fusion.weights.bm25", hm)
	}
	for _, axis := range []struct{ class, pos string }{{"xtick", "x"}, {"ytick", "-y"}} {
		ticks := strings.Fields(eval("heatmap "+axis.class, `Array.from(document.querySelectorAll('#heatmaps svg text.`+axis.class+`')).map(t => t.dataset.value + "@" + t.getAttribute("`+strings.TrimPrefix(axis.pos, "-")+`")).join(" ")`))
		var vals, pos []float64
		for _, tk := range ticks {
			v, p, _ := strings.Cut(tk, "@")
			fv, err := strconv.ParseFloat(v, 64)
			if err != nil {
				t.Errorf("heatmap %s %q is not a number", axis.class, v)
			}
			fp, _ := strconv.ParseFloat(p, 64)
			if axis.pos == "-y" {
				fp = -fp
			}
			vals, pos = append(vals, fv), append(pos, fp)
		}
		if len(vals) < 2 || !slices.IsSorted(vals) || !slices.IsSorted(pos) {
			t.Errorf("heatmap %s labels %v: want numbers increasing along the axis", axis.class, ticks)
		}
	}
	if cells := eval("heatmap cells", `String(document.querySelectorAll('#heatmaps rect.cell').length)`); cells == "0" {
		t.Error("the heatmap draws no cell")
	}
	if m := eval("importance", `document.querySelector('#importance-method') ? document.querySelector('#importance-method').textContent : ""`); !strings.Contains(m, "η² (correlation ratio)") {
		t.Errorf("the study's parameter importance does not name its method: %q", m)
	}
	if n := eval("charts without data", `String(Array.from(document.querySelectorAll('main svg')).filter(s => !s.parentElement.querySelector('details.chart-data table')).length)`); n != "0" {
		t.Errorf("%s charts on the run page have no data table", n)
	}
	// A 390-pixel phone: the runs page and this run page do not scroll
	// sideways either (the nav wraps, tables scroll inside themselves).
	do("390 px", chromedp.EmulateViewport(390, 844))
	defer chromedp.Do(ctx, chromedp.EmulateReset())
	for _, p := range []struct{ path, name string }{{"/", "11-runs-390"}, {"/run/" + id, "12-study-run-390"}} {
		do("open "+p.path+" at 390 px", chromedp.Navigate(base+p.path), chromedp.WaitVisible(chromedp.CSS("main")))
		if w := eval("page width", `String(document.documentElement.scrollWidth) + " " + String(window.innerWidth)`); func() bool {
			f := strings.Fields(w)
			sw, _ := strconv.Atoi(f[0])
			iw, _ := strconv.Atoi(f[1])
			return sw > iw
		}() {
			t.Errorf("%s scrolls sideways at 390 px: scroll width, window width %s; widest: %s", p.path, w, eval("the widestJS elements", widestJS))
		}
		glance(p.name)
	}
}
