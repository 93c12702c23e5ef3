package chart

import (
	"cmp"
	"fmt"
	"html/template"
	"math"
	"slices"
	"strings"
)

// The size of the per-query difference chart, in pixels.
const (
	DeltasWidth, DeltasHeight = 720, 170
	dLeft, dRight             = 52.0, 16.0
	dTop, dBottom             = 24.0, 26.0
)

// Colours of the per-query differences: gains, losses.
const (
	colorGain = "#1e7a46"
	colorLoss = "#b42318"
)

// Delta is one query's difference of a score between two trials.
type Delta struct {
	Query string
	Value float64
}

// WinTieLoss counts the differences above, at (within tie) and below 0.
func WinTieLoss(ds []Delta, tie float64) (win, tied, loss int) {
	for _, d := range ds {
		switch {
		case d.Value > tie:
			win++
		case d.Value < -tie:
			loss++
		default:
			tied++
		}
	}
	return win, tied, loss
}

// Deltas draws per-query differences (B − A) as SVG: one bar per query,
// sorted from the largest loss to the largest gain, losses red below the
// zero line, gains green above it, ties (|Δ| ≤ tie) as a tick on the
// line; the counts of wins, ties and losses in the title. what names the
// comparison in the chart's accessible name ("k=20 vs baseline").
// Empty for no queries.
func Deltas(ds []Delta, tie float64, what string) template.HTML {
	if len(ds) == 0 {
		return ""
	}
	ds = sortedDeltas(ds)
	span := 0.0
	for _, d := range ds {
		span = max(span, math.Abs(d.Value))
	}
	if span == 0 {
		span = 0.01
	}
	span *= 1.05
	mid := dTop + (DeltasHeight-dTop-dBottom)/2
	y := func(v float64) float64 { return mid - v/span*(DeltasHeight-dTop-dBottom)/2 }
	w := (DeltasWidth - dLeft - dRight) / float64(len(ds))
	win, tied, loss := WinTieLoss(ds, tie)
	esc := template.HTMLEscapeString
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" class="deltas-chart" width="%d" height="%d" viewBox="0 0 %d %d" role="img" aria-label="per-query differences, %s: %d better, %d tied, %d worse" font-family="Liberation Sans, Arial, sans-serif" font-size="12">`,
		DeltasWidth, DeltasHeight, DeltasWidth, DeltasHeight, esc(what), win, tied, loss)
	fmt.Fprintf(&b, `<text class="counts" x="4" y="15" fill="%s">per query, sorted: %d better · %d tied · %d worse</text>`, colorText, win, tied, loss)
	for _, v := range []float64{-span / 1.05, 0, span / 1.05} {
		fmt.Fprintf(&b, `<line class="grid" x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="%s"/><text class="ylabel" x="%.1f" y="%.1f" text-anchor="end" fill="%s">%+.3f</text>`,
			dLeft, DeltasWidth-dRight, y(v), y(v), colorGrid, dLeft-4, y(v)+4, colorText, v)
	}
	for i, d := range ds {
		x := dLeft + float64(i)*w
		title := esc(fmt.Sprintf("%s: %+.4f", d.Query, d.Value))
		switch {
		case d.Value > tie:
			fmt.Fprintf(&b, `<rect class="gain" x="%.2f" y="%.1f" width="%.2f" height="%.1f" fill="%s"><title>%s</title></rect>`, x, y(d.Value), max(w-0.5, 0.5), mid-y(d.Value), colorGain, title)
		case d.Value < -tie:
			fmt.Fprintf(&b, `<rect class="loss" x="%.2f" y="%.1f" width="%.2f" height="%.1f" fill="%s"><title>%s</title></rect>`, x, mid, max(w-0.5, 0.5), y(d.Value)-mid, colorLoss, title)
		default:
			fmt.Fprintf(&b, `<rect class="tie" x="%.2f" y="%.1f" width="%.2f" height="2" fill="%s"><title>%s</title></rect>`, x, mid-1, max(w-0.5, 0.5), colorBaseline, title)
		}
	}
	fmt.Fprintf(&b, `<line class="zero" x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="#666666"/>`, dLeft, DeltasWidth-dRight, mid, mid)
	fmt.Fprintf(&b, `<text class="xtitle" x="%.1f" y="%d" text-anchor="middle" fill="%s">queries, from the largest loss to the largest gain</text></svg>`, (dLeft+DeltasWidth-dRight)/2, DeltasHeight-6, colorText)
	return template.HTML(b.String()) // every text inside was escaped above
}

// sortedDeltas is a copy of ds from the largest loss to the largest gain,
// ties by query.
func sortedDeltas(ds []Delta) []Delta {
	ds = slices.Clone(ds)
	slices.SortStableFunc(ds, func(a, b Delta) int {
		if c := cmp.Compare(a.Value, b.Value); c != 0 {
			return c
		}
		return cmp.Compare(a.Query, b.Query)
	})
	return ds
}
