package ui

import (
	"fmt"

	"github.com/fusiontune/fusiontune/runs"
)

// barChart is an SVG chart as the templates draw it: bars in a
// Width x Height box.
type barChart struct {
	Width, Height int
	Bars          []bar
	Lines         []gridLine
}

// bar is one rectangle with its tooltip.
type bar struct {
	X, Y, W, H float64
	Title      string
	Best       bool
}

// gridLine is a labelled horizontal rule.
type gridLine struct {
	Y     float64
	Label string
}

// primaryChart draws the primary score of every successful trial in trial
// order (the study's progress), the best highlighted; at most 400 bars.
func primaryChart(es []runs.Entry) barChart {
	c := barChart{Width: 720, Height: 160}
	var ok []runs.Entry
	lo, hi := 1.0, 0.0
	for _, e := range es {
		if e.Status == runs.StatusOK {
			ok = append(ok, e)
			lo, hi = min(lo, e.Primary), max(hi, e.Primary)
		}
	}
	if len(ok) == 0 {
		return c
	}
	if len(ok) > 400 {
		ok = ok[:400]
	}
	byIndex := make([]runs.Entry, len(ok))
	copy(byIndex, ok)
	for i := 1; i < len(byIndex); i++ { // insertion sort by trial index: small n
		for j := i; j > 0 && byIndex[j].Index < byIndex[j-1].Index; j-- {
			byIndex[j], byIndex[j-1] = byIndex[j-1], byIndex[j]
		}
	}
	lo = max(0, lo-0.05*(hi-lo+0.01))
	span := hi - lo
	if span <= 0 {
		span = 1
	}
	plotH := float64(c.Height - 20)
	w := float64(c.Width-40) / float64(len(byIndex))
	for i, e := range byIndex {
		h := (e.Primary - lo) / span * plotH
		c.Bars = append(c.Bars, bar{X: 40 + float64(i)*w, Y: plotH - h + 10, W: max(w-1, 0.5), H: h,
			Title: fmt.Sprintf("%s: %.4f", e.Name, e.Primary), Best: e.Rank == 1})
	}
	for _, v := range []float64{lo, lo + span/2, hi} {
		c.Lines = append(c.Lines, gridLine{Y: plotH - (v-lo)/span*plotH + 10, Label: fmt.Sprintf("%.3f", v)})
	}
	return c
}
