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

// The parallel-coordinates chart's size, in pixels, and its margins.
const (
	ParallelWidth, ParallelHeight = 720, 280
	pLeft, pRight                 = 60.0, 60.0
	pTop, pBottom                 = 34.0, 30.0
)

// Parallel is a study's parallel-coordinates chart and its data.
type Parallel struct {
	// Axes are the parameters, in name order, then "primary".
	Axes []string
	// SVG is the chart, Data its trials as a table.
	SVG, Data template.HTML
}

// pAxis places one parameter's values on a vertical axis.
type pAxis struct {
	name    string
	numeric bool
	log     bool
	lo, hi  float64  // numbers (log10 when log)
	cats    []string // texts, bottom to top
	unknown bool     // some trial's value is not known: a slot below
}

// ParallelCoordinates draws, for a study with at least
// minImportanceTrials successful trials and two or more varying
// parameters, one vertical axis per parameter (numbers bottom to top,
// on a log scale when geometric; texts evenly spaced in sorted order) and
// one for the primary score, each successful trial a line through its
// values coloured by its primary score (the heatmaps' scale), the best
// trial in red on top. False otherwise.
func ParallelCoordinates(lb runs.Leaderboard) (Parallel, bool) {
	ok, varying, isStudy := study(lb)
	if !isStudy || len(varying) < 2 {
		return Parallel{}, false
	}
	var axes []pAxis
	for _, name := range varying {
		axes = append(axes, newPAxis(name, ok))
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, e := range ok {
		lo, hi = min(lo, e.Primary), max(hi, e.Primary)
	}
	axes = append(axes, pAxis{name: "primary", numeric: true, lo: lo, hi: hi})
	best := ""
	if e, found := lb.Best(); found {
		best = e.Name
	}
	p := Parallel{Axes: append(slices.Clone(varying), "primary")}
	slices.SortStableFunc(ok, func(a, b runs.Entry) int { // best drawn last, on top
		if c := cmp.Compare(a.Primary, b.Primary); c != 0 {
			return c
		}
		return cmp.Compare(b.Name, a.Name)
	})
	p.SVG = parallelSVG(axes, ok, lo, hi, best, lb.Measure())
	rows := make([][]string, 0, len(ok))
	for i := len(ok) - 1; i >= 0; i-- {
		e := ok[i]
		row := []string{e.Name}
		for _, name := range varying {
			v, known := e.Value(name)
			if known {
				row = append(row, paramtext.Rounded(v))
			} else {
				row = append(row, defaultLabel)
			}
		}
		rows = append(rows, append(row, fmt.Sprintf("%.4f", e.Primary)))
	}
	p.Data = dataTable("parallel coordinates: each successful trial's parameters and primary ("+lb.Measure()+"), best first",
		append([]string{"trial"}, p.Axes...), rows)
	return p, true
}

// newPAxis lays out parameter name's values among the trials es.
func newPAxis(name string, es []runs.Entry) pAxis {
	a := pAxis{name: name, numeric: true}
	var xs []float64
	for _, e := range es {
		v, known := e.Value(name)
		if !known {
			a.unknown = true
			continue
		}
		x, isNum := paramtext.Float(v)
		if !isNum {
			a.numeric = false
		}
		xs = append(xs, x)
		if t := paramtext.Rounded(v); !slices.Contains(a.cats, t) {
			a.cats = append(a.cats, t)
		}
	}
	xs = distinct(xs)
	if a.numeric && len(xs) >= 2 {
		a.cats = nil
		a.log = geometric(xs)
		a.lo, a.hi = xs[0], xs[len(xs)-1]
		if a.log {
			a.lo, a.hi = math.Log10(a.lo), math.Log10(a.hi)
		}
		return a
	}
	a.numeric = false
	slices.Sort(a.cats)
	return a
}

// y is where value v (known or not) stands on the axis, between the
// plot's top and bottom.
func (a pAxis) y(v any, known bool) float64 {
	bottom, top := ParallelHeight-pBottom, pTop
	if a.unknown {
		bottom -= 14 // the unknown's slot below
	}
	if !known {
		return ParallelHeight - pBottom
	}
	if a.numeric {
		x, _ := paramtext.Float(v)
		if a.log {
			x = math.Log10(x)
		}
		f := 0.5
		if a.hi > a.lo {
			f = (x - a.lo) / (a.hi - a.lo)
		}
		return bottom - f*(bottom-top)
	}
	i := slices.Index(a.cats, paramtext.Rounded(v))
	if len(a.cats) == 1 {
		return (bottom + top) / 2
	}
	return bottom - float64(i)/float64(len(a.cats)-1)*(bottom-top)
}

// ticks are the axis's labelled values: its ends (numbers) or every
// category, bottom to top, with the number each stands for.
func (a pAxis) ticks() (labels []string, values []any) {
	if a.numeric {
		lo, hi := a.lo, a.hi
		if a.log {
			lo, hi = math.Pow(10, lo), math.Pow(10, hi)
		}
		return []string{paramtext.Number(lo), paramtext.Number(hi)}, []any{lo, hi}
	}
	for _, c := range a.cats {
		labels, values = append(labels, c), append(values, c)
	}
	return labels, values
}

// parallelSVG writes the chart: the axes with their names and end labels,
// then a polyline per trial (es in drawing order).
func parallelSVG(axes []pAxis, es []runs.Entry, lo, hi float64, best, measure string) template.HTML {
	esc := template.HTMLEscapeString
	step := (ParallelWidth - pLeft - pRight) / float64(len(axes)-1)
	x := func(i int) float64 { return pLeft + float64(i)*step }
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" class="parallel-chart" width="%d" height="%d" viewBox="0 0 %d %d" role="img" aria-label="parallel coordinates: each trial's parameters and primary (%s)" font-family="Liberation Sans, Arial, sans-serif" font-size="11">`,
		ParallelWidth, ParallelHeight, ParallelWidth, ParallelHeight, esc(measure))
	for _, e := range es {
		pts := make([]string, len(axes))
		for i, a := range axes {
			var v any = e.Primary
			known := true
			if i < len(axes)-1 {
				v, known = e.Value(a.name)
			}
			pts[i] = fmt.Sprintf("%.1f,%.1f", x(i), a.y(v, known))
		}
		color, width, class := hex(shade(e.Primary, lo, hi)), 1.2, "trial"
		if e.Name == best {
			color, width, class = colorBest, 2.5, "trial best"
		}
		fmt.Fprintf(&b, `<polyline class="%s" points="%s" fill="none" stroke="%s" stroke-width="%g" stroke-opacity="0.75"><title>%s</title></polyline>`,
			class, strings.Join(pts, " "), color, width, esc(fmt.Sprintf("%s: primary %.4f", e.Name, e.Primary)))
	}
	for i, a := range axes {
		top, bottom := pTop, ParallelHeight-pBottom
		fmt.Fprintf(&b, `<line class="paxis" x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="#666666"/>`, x(i), x(i), top, bottom)
		name := a.name
		if a.log {
			name += " (log)"
		}
		anchor := "middle"
		switch i {
		case 0:
			anchor = "start"
		case len(axes) - 1:
			anchor = "end"
		}
		fmt.Fprintf(&b, `<text class="pname" x="%.1f" y="%.1f" text-anchor="%s" fill="%s">%s</text>`, x(i), top-14, anchor, colorText, esc(name))
		labels, values := a.ticks()
		for k, l := range labels {
			fmt.Fprintf(&b, `<text class="ptick" x="%.1f" y="%.1f" fill="%s" stroke="#ffffff" stroke-width="3" paint-order="stroke" data-axis="%s">%s</text>`, x(i)+4, a.y(values[k], true)+4, colorText, esc(a.name), esc(l))
		}
		if a.unknown {
			fmt.Fprintf(&b, `<text class="ptick" x="%.1f" y="%.1f" fill="%s" stroke="#ffffff" stroke-width="3" paint-order="stroke">%s</text>`, x(i)+4, bottom+4, colorText, defaultLabel)
		}
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String()) // every text inside was escaped above
}
