package ui

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/fusiontune/fusiontune/runs"
)

// chart is an SVG chart as the templates draw it: bars (or points) in a
// Width x Height box.
type chart struct {
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
func primaryChart(es []runs.Entry) chart {
	c := chart{Width: 720, Height: 160}
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

// paramChart is one varied parameter's chart: every successful trial's
// primary score (a point) at its value of the parameter, and a line
// through the best score at each value.
type paramChart struct {
	Name          string
	Width, Height int
	Points        []point
	Lines         []gridLine
	Ticks         []tick
	Best          string // the polyline through each value's best score
	Scale         string // "categories", "linear" or "log"
}

// point is one trial on a parameter chart.
type point struct {
	X, Y  float64
	Title string
	Best  bool
}

// tick is a labelled position on a chart's x axis.
type tick struct {
	X     float64
	Label string
}

// maxCategories is the most distinct values a parameter's chart places
// side by side; a numeric parameter with more gets a linear (or log) axis.
const maxCategories = 24

// paramCharts draws a chart for each parameter whose value differs between
// successful trials (a trial without the parameter counts as "—"), in
// parameter name order.
func paramCharts(es []runs.Entry) []paramChart {
	var ok []runs.Entry
	names := map[string]bool{}
	lo, hi := 1.0, 0.0
	for _, e := range es {
		if e.Status != runs.StatusOK {
			continue
		}
		ok = append(ok, e)
		lo, hi = min(lo, e.Primary), max(hi, e.Primary)
		for k := range e.Params {
			names[k] = true
		}
	}
	if len(ok) < 2 {
		return nil
	}
	lo = max(0, lo-0.05*(hi-lo+0.01))
	span := hi - lo
	if span <= 0 {
		span = 1
	}
	var out []paramChart
	for _, name := range slices.Sorted(maps.Keys(names)) {
		if c, varied := paramChartOf(name, ok, lo, span); varied {
			out = append(out, c)
		}
	}
	return out
}

// paramChartOf draws name's chart over es (successful trials), the y axis
// from lo over span; varied is false when every trial has one value.
func paramChartOf(name string, es []runs.Entry, lo, span float64) (c paramChart, varied bool) {
	c = paramChart{Name: name, Width: 360, Height: 170}
	const top, plotH = 8.0, 130.0
	labels := make([]string, len(es))
	nums := make([]float64, len(es))
	numeric := true
	distinct := map[string]float64{}
	for i, e := range es {
		v, has := e.Params[name]
		labels[i] = "—"
		if has {
			labels[i] = fmt.Sprint(v)
		}
		f, isNum := toFloat(v)
		numeric = numeric && has && isNum
		nums[i] = f
		distinct[labels[i]] = f
	}
	if len(distinct) < 2 {
		return c, false
	}
	keys := slices.Collect(maps.Keys(distinct))
	if numeric {
		slices.SortFunc(keys, func(a, b string) int { return cmp.Compare(distinct[a], distinct[b]) })
	} else {
		slices.Sort(keys)
	}
	ax := newXAxis(keys, distinct, numeric, float64(c.Width))
	c.Scale, c.Ticks = ax.scale, ax.ticks
	yOf := func(p float64) float64 { return top + plotH - (p-lo)/span*plotH }
	best := map[string]point{}
	for i, e := range es {
		p := point{X: ax.x(labels[i], nums[i]), Y: yOf(e.Primary), Title: fmt.Sprintf("%s: %s = %s, primary %.4f", e.Name, name, labels[i], e.Primary), Best: e.Rank == 1}
		c.Points = append(c.Points, p)
		if b, seen := best[labels[i]]; !seen || p.Y < b.Y {
			best[labels[i]] = p
		}
	}
	pts := slices.Collect(maps.Values(best))
	slices.SortFunc(pts, func(a, b point) int { return cmp.Compare(a.X, b.X) })
	path := make([]string, len(pts))
	for i, b := range pts {
		path[i] = fmt.Sprintf("%.1f,%.1f", b.X, b.Y)
	}
	c.Best = strings.Join(path, " ")
	for _, v := range []float64{lo, lo + span/2, lo + span} {
		c.Lines = append(c.Lines, gridLine{Y: yOf(v), Label: fmt.Sprintf("%.3f", v)})
	}
	return c, true
}

// xAxis places a parameter's values on a chart's x axis: side by side
// (categories), or by value on a linear or log scale.
type xAxis struct {
	scale string
	ticks []tick
	slot  map[string]float64    // categories: each value's x
	pos   func(float64) float64 // linear/log: a value's x
}

// newXAxis lays out keys (the distinct values, in order; distinct maps
// each to its number when numeric) over a chart width wide: numeric values
// beyond maxCategories by value, on a log scale when they span more than
// 50x, else side by side with at most 8 labels.
func newXAxis(keys []string, distinct map[string]float64, numeric bool, width float64) xAxis {
	const left, right = 40.0, 12.0
	plotW := width - left - right
	if numeric && len(keys) > maxCategories {
		ax := xAxis{scale: "linear"}
		tf := func(v float64) float64 { return v }
		xlo, xhi := distinct[keys[0]], distinct[keys[len(keys)-1]]
		if xlo > 0 && xhi/xlo > 50 {
			tf, ax.scale = math.Log10, "log"
		}
		a, b := tf(xlo), tf(xhi)
		ax.pos = func(v float64) float64 { return left + (tf(v)-a)/(b-a)*plotW }
		for _, k := range []string{keys[0], keys[len(keys)/2], keys[len(keys)-1]} {
			ax.ticks = append(ax.ticks, tick{X: ax.pos(distinct[k]), Label: k})
		}
		return ax
	}
	ax := xAxis{scale: "categories", slot: make(map[string]float64, len(keys))}
	every := max(1, (len(keys)+7)/8)
	for j, k := range keys {
		ax.slot[k] = left + (float64(j)+0.5)*plotW/float64(len(keys))
		if j%every == 0 {
			ax.ticks = append(ax.ticks, tick{X: ax.slot[k], Label: k})
		}
	}
	return ax
}

// x is the position of a trial whose value reads label (num as a number).
func (ax xAxis) x(label string, num float64) float64 {
	if ax.slot != nil {
		return ax.slot[label]
	}
	return ax.pos(num)
}

// toFloat is v as a number, when it is one.
func toFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case float32:
		return float64(x), true
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	case json.Number:
		f, err := x.Float64()
		return f, err == nil
	}
	return 0, false
}
