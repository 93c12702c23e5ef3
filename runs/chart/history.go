package chart

import (
	"cmp"
	"fmt"
	"html/template"
	"math"
	"slices"
	"strings"

	"github.com/fusiontune/fusiontune/internal/paramtext"
	"github.com/fusiontune/fusiontune/runs"
)

// The size of the optimization-history chart, in pixels, and its plot
// area's margins.
const (
	HistoryWidth, HistoryHeight = 720, 240
	hLeft, hRight               = 52.0, 16.0
	hTop, hBottom               = 28.0, 40.0
)

// colorStep is the best-so-far step line's.
const colorStep = "#b03a2e"

// History draws lb's optimization history as SVG: each successful trial a
// dot at its trial number (x) and primary score (y), pruned trials a grey
// cross at their partial score (a score over a subset of the queries,
// not comparable with the others'), the best score so far as a step line
// over the successful trials, the baseline's score as a dashed line, the
// best trial ringed. Empty when fewer than two trials were scored.
func History(lb runs.Leaderboard) template.HTML {
	drawn := scored(lb)
	if len(drawn) < 2 {
		return ""
	}
	best := ""
	if e, ok := lb.Best(); ok {
		best = e.Name
	}
	ylo, yhi := drawn[0].Primary, drawn[0].Primary
	for _, e := range drawn {
		ylo, yhi = min(ylo, e.Primary), max(yhi, e.Primary)
	}
	pad := max((yhi-ylo)*0.08, 0.005)
	ylo, yhi = ylo-pad, yhi+pad
	xlo, xhi := float64(drawn[0].Index), float64(drawn[len(drawn)-1].Index)
	if xhi == xlo {
		xhi = xlo + 1
	}
	xpad := (xhi - xlo) * 0.02
	xlo, xhi = xlo-xpad, xhi+xpad
	x := func(i int) float64 { return hLeft + (float64(i)-xlo)/(xhi-xlo)*(HistoryWidth-hLeft-hRight) }
	y := func(p float64) float64 { return hTop + (yhi-p)/(yhi-ylo)*(HistoryHeight-hTop-hBottom) }

	var b strings.Builder
	esc := template.HTMLEscapeString
	measure := lb.Measure()
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" class="history-chart" width="%d" height="%d" viewBox="0 0 %d %d" role="img" aria-label="optimization history: primary (%s) by trial number, best so far as a step line" font-family="Liberation Sans, Arial, sans-serif" font-size="12">`,
		HistoryWidth, HistoryHeight, HistoryWidth, HistoryHeight, esc(measure))
	fmt.Fprintf(&b, `<text class="ytitle" x="4" y="14" fill="%s">primary (%s)</text>`, colorText, esc(measure))
	for _, v := range yLevels(ylo+pad, yhi-pad) {
		fmt.Fprintf(&b, `<line class="grid" x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="%s"/><text class="ylabel" x="%.1f" y="%.1f" text-anchor="end" fill="%s">%.3f</text>`,
			hLeft, HistoryWidth-hRight, y(v), y(v), colorGrid, hLeft-4, y(v)+4, colorText, v)
	}
	base := HistoryHeight - hBottom
	fmt.Fprintf(&b, `<line class="axis" x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="#999999"/>`, hLeft, HistoryWidth-hRight, base, base)
	if e, err := lb.Find(lb.Baseline); err == nil && lb.Baseline != "" && e.Status == runs.StatusOK {
		fmt.Fprintf(&b, `<line class="baseline" x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="%s" stroke-dasharray="5 4" stroke-width="1.2"/><text class="baseline-label" x="%.1f" y="%.1f" fill="%s">baseline %.4f</text>`,
			hLeft, HistoryWidth-hRight, y(e.Primary), y(e.Primary), colorBaseline, hLeft+4, y(e.Primary)+14, colorText, e.Primary)
	}
	fmt.Fprintf(&b, `<path class="best-so-far" d="%s" fill="none" stroke="%s" stroke-width="1.6"/>`, stepPath(drawn, x, y), colorStep)
	for _, e := range drawn {
		title := esc(fmt.Sprintf("trial %d %s: primary %.4f", e.Index, e.Name, e.Primary))
		switch {
		case e.Status == runs.StatusPruned:
			title = esc(fmt.Sprintf("trial %d %s: pruned at %.0f%%, partial primary %.4f", e.Index, e.Name, 100*e.Fraction, e.Primary))
			cx, cy := x(e.Index), y(e.Primary)
			fmt.Fprintf(&b, `<path class="pt pruned" d="M%.1f %.1fl6 6m0 -6l-6 6" stroke="%s" stroke-width="1.3" data-index="%d"><title>%s</title></path>`,
				cx-3, cy-3, colorPruned, e.Index, title)
		case e.Name == best:
			// drawn last, on top
		default:
			fmt.Fprintf(&b, `<circle class="pt" cx="%.1f" cy="%.1f" r="3" fill="%s" fill-opacity="0.7" data-index="%d"><title>%s</title></circle>`,
				x(e.Index), y(e.Primary), colorOther, e.Index, title)
		}
	}
	if e, err := lb.Find(best); err == nil && best != "" {
		fmt.Fprintf(&b, `<circle class="pt best" cx="%.1f" cy="%.1f" r="5.5" fill="none" stroke="%s" stroke-width="2" data-index="%d"><title>%s</title></circle>`,
			x(e.Index), y(e.Primary), colorBest, e.Index, esc(fmt.Sprintf("best: trial %d %s, primary %.4f", e.Index, e.Name, e.Primary)))
	}
	var xs []float64
	for _, e := range drawn {
		xs = append(xs, float64(e.Index))
	}
	for _, t := range tickValues(slices.Compact(xs), Linear) {
		if t != float64(int(t)) {
			continue
		}
		fmt.Fprintf(&b, `<line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="#999999"/><text class="tick" x="%.1f" y="%.1f" text-anchor="middle" fill="%s">%s</text>`,
			x(int(t)), x(int(t)), base, base+4, x(int(t)), base+16, colorText, paramtext.Number(t))
	}
	fmt.Fprintf(&b, `<text class="xtitle" x="%.1f" y="%d" text-anchor="middle" fill="%s">trial number</text></svg>`, (hLeft+HistoryWidth-hRight)/2, HistoryHeight-6, colorText)
	return template.HTML(b.String()) // every text inside was escaped above
}

// stepPath is the best-so-far step line over the successful trials of
// drawn (in trial order): flat until a trial beats the best before it,
// then up to its score, on to the last trial.
func stepPath(drawn []runs.Entry, x func(int) float64, y func(float64) float64) string {
	var b strings.Builder
	best, started, last := 0.0, false, 0
	for _, e := range drawn {
		if e.Status != runs.StatusOK {
			continue
		}
		last = e.Index
		switch {
		case !started:
			fmt.Fprintf(&b, "M%.1f %.1f", x(e.Index), y(e.Primary))
			best, started = e.Primary, true
		case e.Primary > best:
			fmt.Fprintf(&b, "H%.1fV%.1f", x(e.Index), y(e.Primary))
			best = e.Primary
		}
	}
	if started {
		fmt.Fprintf(&b, "H%.1f", x(last))
	}
	return b.String()
}

// yLevels are the round primary scores labelled between lo and hi.
func yLevels(lo, hi float64) []float64 {
	if hi <= lo {
		return []float64{lo}
	}
	step := niceStep((hi - lo) / 4)
	var out []float64
	for t := math.Ceil(lo/step) * step; t <= hi+step*1e-9; t += step {
		out = append(out, math.Round(t/step)*step)
	}
	return out
}

// scored is lb's successful and pruned trials in trial order.
func scored(lb runs.Leaderboard) []runs.Entry {
	var out []runs.Entry
	for _, e := range lb.Trials {
		if e.Status == runs.StatusOK || e.Status == runs.StatusPruned {
			out = append(out, e)
		}
	}
	slices.SortFunc(out, func(a, b runs.Entry) int { return cmp.Compare(a.Index, b.Index) })
	return out
}
