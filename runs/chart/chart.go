package chart

import (
	"cmp"
	"fmt"
	"html/template"
	"slices"
	"strings"

	"github.com/fusiontune/fusiontune/internal/paramtext"
	"github.com/fusiontune/fusiontune/runs"
)

// The size of a chart, in pixels, and the plot area's margins.
const (
	Width, Height = 360, 210
	left, right   = 46.0, 14.0
	top, bottom   = 22.0, 44.0
)

// maxLineValues is the most distinct values a parameter may take for its
// chart to join the best score at each value: beyond it (sampled values)
// a line would only zigzag between single trials.
const maxLineValues = 12

// Colours of the points: the best trial, the baseline, other trials and
// pruned ones; the line through the best score at each value; the grid.
const (
	colorBest     = "#c0392b"
	colorBaseline = "#7f8c8d"
	colorOther    = "#2980b9"
	colorPruned   = "#a0a0a0"
	colorLine     = "#1f3a5f"
	colorGrid     = "#e6e6e6"
	colorText     = "#555566"
)

// Param is the chart of one parameter.
type Param struct {
	// Name is the parameter ("fusion.k").
	Name string
	// Scale is the x axis's: Linear, Log or Categories.
	Scale string
	// Line is whether a line joins the best score at each value.
	Line bool
	// Defaults counts the trials drawn at the backend's default value (or
	// at the "default" slot) because they leave the parameter unset.
	Defaults int
	// SVG is the chart, an <svg> element of Width × Height pixels.
	SVG template.HTML
	// Data is the chart's data as a table folded in <details>: each trial
	// drawn, its value, primary score and status.
	Data template.HTML
}

// Params draws a chart for each parameter of lb's trials (Varying) that
// takes two or more values among the successful and pruned trials, in
// name order: every such trial a point at its value (its effective value
// when it leaves the parameter unset: Entry.Value) and primary score,
// pruned ones at their partial score; the best trial and the baseline
// marked.
func Params(lb runs.Leaderboard) []Param {
	var drawn []runs.Entry
	for _, e := range lb.Trials {
		if e.Status == runs.StatusOK || e.Status == runs.StatusPruned {
			drawn = append(drawn, e)
		}
	}
	if len(drawn) < 2 {
		return nil
	}
	best := ""
	if e, ok := lb.Best(); ok {
		best = e.Name
	}
	var out []Param
	for _, name := range lb.Varying() {
		if c, ok := draw(name, drawn, best, lb.Baseline, lb.Measure()); ok {
			out = append(out, c)
		}
	}
	return out
}

// point is one trial on a chart.
type point struct {
	x, y  float64
	e     runs.Entry
	role  string
	title string
}

// draw charts parameter name over drawn; false when its trials take fewer
// than two values.
func draw(name string, drawn []runs.Entry, best, baseline, measure string) (Param, bool) {
	vals := make([]value, len(drawn))
	numeric, distinct := true, map[string]bool{}
	c := Param{Name: name}
	for i, e := range drawn {
		v, known := e.Value(name)
		vals[i].known = known
		if !known {
			distinct["\x00"] = true
			continue
		}
		vals[i].text = paramtext.Rounded(v)
		distinct[paramtext.Exact(v)] = true
		if x, ok := paramtext.Float(v); ok {
			vals[i].num = x
		} else {
			numeric = false
		}
	}
	if len(distinct) < 2 || numeric && !slices.ContainsFunc(vals, func(v value) bool { return v.known }) {
		return c, false
	}
	if numeric {
		known := map[float64]bool{}
		for _, v := range vals {
			if v.known {
				known[v.num] = true
			}
		}
		if len(known) < 2 {
			numeric = false // a number and the unknown: two categories
		}
	}
	ax := newXAxis(vals, numeric, left, Width-right)
	c.Scale = ax.scale
	lo, hi := drawn[0].Primary, drawn[0].Primary
	for _, e := range drawn {
		lo, hi = min(lo, e.Primary), max(hi, e.Primary)
	}
	pad := max((hi-lo)*0.08, 0.005)
	ylo, yhi := lo-pad, hi+pad
	y := func(p float64) float64 { return top + (yhi-p)/(yhi-ylo)*(Height-top-bottom) }
	pts := make([]point, len(drawn))
	for i, e := range drawn {
		_, set := e.Params[name]
		p := point{x: ax.at(vals[i]), y: y(e.Primary), e: e, role: role(e, best, baseline)}
		shown := vals[i].text
		switch {
		case !vals[i].known:
			shown = "unset (the backend's default)"
		case !set:
			shown += " (default)"
		}
		if !set {
			c.Defaults++
		}
		p.title = fmt.Sprintf("%s: %s = %s, primary %.4f", e.Name, name, shown, e.Primary)
		pts[i] = p
	}
	c.Line = len(distinct) <= maxLineValues && c.Scale != Categories // no line through categories
	c.SVG = svg(c, ax, pts, []float64{lo, (lo + hi) / 2, hi}, y, measure)
	c.Data = paramData(name, drawn, vals, measure)
	return c, true
}

// role is how trial e is marked: best, baseline, pruned or trial.
func role(e runs.Entry, best, baseline string) string {
	switch {
	case e.Name == best:
		return "best"
	case e.Name == baseline:
		return "baseline"
	case e.Status == runs.StatusPruned:
		return "pruned"
	}
	return "trial"
}

// roles are drawn in this order, so that the best trial is on top.
var roles = []struct {
	name, class, fill, stroke string
	r                         float64
}{
	{"pruned", "pt pruned", "none", colorPruned, 3},
	{"trial", "pt", colorOther, "none", 3},
	{"baseline", "pt baseline", colorBaseline, "none", 4},
	{"best", "pt best", "none", colorBest, 5},
}

// svg writes the chart: the grid with the primary score's levels, the
// line through the best score at each value, the points with their
// tooltips, the x axis's ticks and title.
func svg(c Param, ax xAxis, pts []point, levels []float64, y func(float64) float64, measure string) template.HTML {
	var b strings.Builder
	esc := template.HTMLEscapeString
	axisTitle := c.Name
	if c.Scale == Log {
		axisTitle += " (log scale)"
	}
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" class="param-chart" width="%d" height="%d" viewBox="0 0 %d %d" role="img" aria-label="primary score by %s" font-family="Liberation Sans, Arial, sans-serif" font-size="10">`,
		Width, Height, Width, Height, esc(axisTitle))
	fmt.Fprintf(&b, `<text class="ytitle" x="4" y="12" fill="%s">primary (%s)</text>`, colorText, esc(measure))
	for _, v := range levels {
		fmt.Fprintf(&b, `<line class="grid" x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="%s"/><text class="ylabel" x="%.1f" y="%.1f" text-anchor="end" fill="%s">%.3f</text>`,
			left, Width-right, y(v), y(v), colorGrid, left-4, y(v)+3, colorText, v)
	}
	base := Height - bottom
	fmt.Fprintf(&b, `<line class="axis" x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="#999999"/>`, left, Width-right, base, base)
	if c.Line {
		fmt.Fprintf(&b, `<polyline class="envelope" points="%s" fill="none" stroke="%s" stroke-width="1.2" stroke-opacity="0.6"/>`, bestLine(pts), colorLine)
	}
	for _, r := range roles {
		for _, p := range pts {
			if p.role != r.name {
				continue
			}
			fmt.Fprintf(&b, `<circle class="%s" cx="%.1f" cy="%.1f" r="%g" fill="%s" fill-opacity="0.75" stroke="%s" stroke-width="1.5"><title>%s</title></circle>`,
				r.class, p.x, p.y, r.r, r.fill, r.stroke, esc(p.title))
		}
	}
	for _, t := range ax.ticks {
		fmt.Fprintf(&b, `<line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="#999999"/><text class="tick" x="%.1f" y="%.1f" text-anchor="middle" fill="%s">%s</text>`,
			t.X, t.X, base, base+4, t.X, base+15, colorText, esc(t.Label))
	}
	fmt.Fprintf(&b, `<text class="xtitle" x="%.1f" y="%d" text-anchor="middle" fill="%s">%s</text></svg>`, (left+Width-right)/2, Height-6, colorText, esc(axisTitle))
	return template.HTML(b.String()) // every text inside was escaped above
}

// bestLine is the polyline through the best successful score at each x.
func bestLine(pts []point) string {
	best := map[float64]point{}
	for _, p := range pts {
		if p.e.Status != runs.StatusOK {
			continue
		}
		if b, seen := best[p.x]; !seen || p.y < b.y {
			best[p.x] = p
		}
	}
	line := make([]point, 0, len(best))
	for _, p := range best {
		line = append(line, p)
	}
	slices.SortFunc(line, func(a, b point) int { return cmp.Compare(a.x, b.x) })
	out := make([]string, len(line))
	for i, p := range line {
		out[i] = fmt.Sprintf("%.1f,%.1f", p.x, p.y)
	}
	return strings.Join(out, " ")
}

// paramData is a parameter chart's data as a table, the trials in the
// order of their value (numbers by value, texts sorted, unknown first),
// ties by name.
func paramData(name string, drawn []runs.Entry, vals []value, measure string) template.HTML {
	idx := make([]int, len(drawn))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		va, vb := vals[a], vals[b]
		switch {
		case va.known != vb.known:
			if va.known {
				return 1
			}
			return -1
		case va.num != vb.num:
			return cmp.Compare(va.num, vb.num)
		case va.text != vb.text:
			return cmp.Compare(va.text, vb.text)
		}
		return cmp.Compare(drawn[a].Name, drawn[b].Name)
	})
	rows := make([][]string, len(idx))
	for r, i := range idx {
		e, v := drawn[i], vals[i].text
		if !vals[i].known {
			v = defaultLabel
		} else if _, set := e.Params[name]; !set {
			v += " (default)"
		}
		status := "ok"
		if e.Status == runs.StatusPruned {
			status = fmt.Sprintf("pruned at %.0f%% (partial score)", 100*e.Fraction)
		}
		rows[r] = []string{e.Name, v, fmt.Sprintf("%.4f", e.Primary), status}
	}
	return dataTable("primary ("+measure+") by "+name, []string{"trial", name, "primary", "status"}, rows)
}
