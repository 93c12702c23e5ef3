package chart

import (
	"fmt"
	"html/template"
	"math"
	"slices"
	"strings"

	"github.com/fusiontune/fusiontune/internal/paramtext"
	"github.com/fusiontune/fusiontune/runs"
)

// The size of a heatmap, in pixels, and its plot area's margins (the
// colour legend stands in the right one).
const (
	HeatmapWidth, HeatmapHeight = 400, 300
	mLeft, mRight               = 64.0, 78.0
	mTop, mBottom               = 16.0, 46.0
)

// maxHeatmaps is the most parameter pairs drawn, the first in name order.
const maxHeatmaps = 6

// maxPrintedCells is the most cells a heatmap prints its scores in.
const maxPrintedCells = 48

// colorEmpty fills a cell no successful trial fell in.
const colorEmpty = "#f2f2f2"

// viridis are the colour scale's stops, from the lowest score to the
// highest: perceptually even and readable by colour-blind people.
var viridis = [][3]float64{
	{0x44, 0x01, 0x54}, {0x3b, 0x52, 0x8b}, {0x21, 0x91, 0x8c}, {0x5e, 0xc9, 0x62}, {0xfd, 0xe7, 0x25},
}

// Heatmap is the chart of one pair of numeric parameters.
type Heatmap struct {
	// X and Y are the parameters on the horizontal and vertical axes.
	X, Y string
	// XScale and YScale are the axes' scales, Linear or Log: how the
	// ranges are cut when Binned (cells of single values stand side by
	// side, in numeric order, whatever the scale).
	XScale, YScale string
	// Binned is whether either axis groups sampled values into ranges.
	Binned bool
	// SVG is the chart, an <svg> element of HeatmapWidth × HeatmapHeight
	// pixels; Data its cells as a table.
	SVG, Data template.HTML
}

// Heatmaps draws, for each pair of numeric parameters the run varied (at
// most maxHeatmaps, in name order), a grid with one axis per parameter:
// a cell per value (or per range of values, when a parameter takes more
// than maxValueBins: valueBins ranges of equal width, log-spaced on a
// log scale), coloured by the best primary score of the successful
// trials in it, printed in the cell when there are few cells; the best
// trial's cell outlined. Pruned and failed trials, and trials whose value
// of either parameter is unknown, are left out. Nil when fewer than two
// numeric parameters vary.
func Heatmaps(lb runs.Leaderboard) []Heatmap {
	var ok []runs.Entry
	for _, e := range lb.Trials {
		if e.Status == runs.StatusOK {
			ok = append(ok, e)
		}
	}
	var names []string
	for _, name := range lb.Varying() {
		if len(numbers(ok, name)) >= 2 {
			names = append(names, name)
		}
	}
	best := ""
	if e, found := lb.Best(); found {
		best = e.Name
	}
	var out []Heatmap
	for i, x := range names {
		for _, y := range names[i+1:] {
			if len(out) == maxHeatmaps {
				return out
			}
			if h, drawn := heatmap(x, y, ok, best, lb.Measure()); drawn {
				out = append(out, h)
			}
		}
	}
	return out
}

// numbers are the distinct numeric values name takes in es, sorted; nil
// when a value is not a number.
func numbers(es []runs.Entry, name string) []float64 {
	var xs []float64
	for _, e := range es {
		v, known := e.Value(name)
		if !known {
			continue
		}
		x, isNum := paramtext.Float(v)
		if !isNum {
			return nil
		}
		if !slices.Contains(xs, x) {
			xs = append(xs, x)
		}
	}
	slices.Sort(xs)
	return xs
}

// cell is one cell of a heatmap: the best trial in it and how many fell
// in it.
type cell struct {
	best  runs.Entry
	count int
}

// heatmap draws the pair (x, y) over the successful trials ok; false when
// fewer than two trials know both values.
func heatmap(x, y string, ok []runs.Entry, best, measure string) (Heatmap, bool) {
	var in []runs.Entry
	var xv, yv []float64
	for _, e := range ok {
		a, ka := e.Value(x)
		b, kb := e.Value(y)
		if !ka || !kb {
			continue
		}
		fa, _ := paramtext.Float(a)
		fb, _ := paramtext.Float(b)
		in, xv, yv = append(in, e), append(xv, fa), append(yv, fb)
	}
	xs, ys := distinct(xv), distinct(yv)
	if len(in) < 2 || len(xs) < 2 || len(ys) < 2 {
		return Heatmap{}, false
	}
	bx, by := newBinning(xs), newBinning(ys)
	h := Heatmap{X: x, Y: y, XScale: bx.scale, YScale: by.scale, Binned: bx.values == nil || by.values == nil}
	cells := make([][]cell, bx.n())
	for i := range cells {
		cells[i] = make([]cell, by.n())
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for i, e := range in {
		c := &cells[bx.index(xv[i])][by.index(yv[i])]
		if c.count == 0 || e.Primary > c.best.Primary || e.Primary == c.best.Primary && e.Name < c.best.Name {
			c.best = e
		}
		c.count++
		lo, hi = min(lo, e.Primary), max(hi, e.Primary)
	}
	h.SVG = heatmapSVG(h, bx, by, cells, lo, hi, best, measure)
	h.Data = heatmapData(h, bx, by, cells, measure)
	return h, true
}

// distinct is xs's distinct values, sorted.
func distinct(xs []float64) []float64 {
	out := slices.Clone(xs)
	slices.Sort(out)
	return slices.Compact(out)
}

// shade is the colour of score p on the scale from lo to hi.
func shade(p, lo, hi float64) [3]float64 {
	t := 0.5
	if hi > lo {
		t = (p - lo) / (hi - lo)
	}
	t = min(max(t, 0), 1) * float64(len(viridis)-1)
	i := min(int(t), len(viridis)-2)
	f := t - float64(i)
	var c [3]float64
	for k := range c {
		c[k] = viridis[i][k] + f*(viridis[i+1][k]-viridis[i][k])
	}
	return c
}

func hex(c [3]float64) string {
	return fmt.Sprintf("#%02x%02x%02x", int(math.Round(c[0])), int(math.Round(c[1])), int(math.Round(c[2])))
}

// inkOn is the text colour readable on background c: black or white,
// whichever contrasts more (WCAG relative luminance).
func inkOn(c [3]float64) string {
	lin := func(v float64) float64 {
		v /= 255
		if v <= 0.03928 {
			return v / 12.92
		}
		return math.Pow((v+0.055)/1.055, 2.4)
	}
	l := 0.2126*lin(c[0]) + 0.7152*lin(c[1]) + 0.0722*lin(c[2])
	if (l+0.05)/0.05 >= 1.05/(l+0.05) {
		return "#000000"
	}
	return "#ffffff"
}

// heatmapSVG writes the heatmap: the cells (x increasing rightwards, y
// upwards), their scores when few, the axes' labels (each carrying its
// bin's number in data-value), the colour legend from lo to hi.
func heatmapSVG(h Heatmap, bx, by binning, cells [][]cell, lo, hi float64, best, measure string) template.HTML {
	esc := template.HTMLEscapeString
	pw, ph := HeatmapWidth-mLeft-mRight, HeatmapHeight-mTop-mBottom
	cw, ch := pw/float64(bx.n()), ph/float64(by.n())
	title := func(name string, bins binning) string {
		if bins.values == nil && bins.scale == Log {
			return name + " (log-spaced ranges)"
		}
		return name
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" class="heatmap" width="%d" height="%d" viewBox="0 0 %d %d" role="img" aria-label="best primary score by %s and %s" font-family="Liberation Sans, Arial, sans-serif" font-size="11">`,
		HeatmapWidth, HeatmapHeight, HeatmapWidth, HeatmapHeight, esc(h.X), esc(h.Y))
	printed := bx.n()*by.n() <= maxPrintedCells && cw >= 34 && ch >= 16
	outline := "" // the best trial's cell, drawn over its neighbours
	for i := range cells {
		for j, c := range cells[i] {
			cx, cy := mLeft+float64(i)*cw, mTop+float64(by.n()-1-j)*ch
			cellTitle := fmt.Sprintf("%s %s, %s %s: no successful trial", h.X, bx.label(i), h.Y, by.label(j))
			fill := colorEmpty
			if c.count > 0 {
				fill = hex(shade(c.best.Primary, lo, hi))
				cellTitle = fmt.Sprintf("%s %s, %s %s: best primary %.4f (%s) of %d trial(s)", h.X, bx.label(i), h.Y, by.label(j), c.best.Primary, c.best.Name, c.count)
			}
			class := "cell"
			if c.count > 0 && c.best.Name == best {
				class = "cell best"
				outline = fmt.Sprintf(`<rect class="outline" x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="none" stroke="#000000" stroke-width="2.5"/>`, cx+1, cy+1, cw-2, ch-2)
			}
			fmt.Fprintf(&b, `<rect class="%s" x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s" stroke="#ffffff" stroke-width="1"><title>%s</title></rect>`,
				class, cx, cy, cw, ch, fill, esc(cellTitle))
			if printed && c.count > 0 {
				fmt.Fprintf(&b, `<text class="value" x="%.1f" y="%.1f" text-anchor="middle" fill="%s" aria-hidden="true">%.3f</text>`,
					cx+cw/2, cy+ch/2+4, inkOn(shade(c.best.Primary, lo, hi)), c.best.Primary)
			}
		}
	}
	b.WriteString(outline)
	base := HeatmapHeight - mBottom
	var xt []tick
	xval := map[float64]float64{}
	for _, t := range bx.ticks() {
		x := mLeft + t.at*cw
		xt, xval[x] = append(xt, tick{X: x, Label: t.label}), t.value
	}
	for _, t := range thin(xt) {
		fmt.Fprintf(&b, `<text class="xtick" x="%.1f" y="%.1f" text-anchor="middle" fill="%s" data-value="%.6g">%s</text>`,
			t.X, base+14, colorText, xval[t.X], esc(t.Label))
	}
	step := max(1, int(math.Ceil(14/ch))) // labels at least 14 pixels apart
	for k, t := range by.ticks() {
		if k%step != 0 {
			continue
		}
		fmt.Fprintf(&b, `<text class="ytick" x="%.1f" y="%.1f" text-anchor="end" fill="%s" data-value="%.6g">%s</text>`,
			mLeft-4, mTop+(float64(by.n())-t.at)*ch+4, colorText, t.value, esc(t.label))
	}
	fmt.Fprintf(&b, `<text class="xtitle" x="%.1f" y="%d" text-anchor="middle" fill="%s">%s</text>`, mLeft+pw/2, HeatmapHeight-8, colorText, esc(title(h.X, bx)))
	fmt.Fprintf(&b, `<text class="ytitle" transform="translate(12 %.1f) rotate(-90)" text-anchor="middle" fill="%s">%s</text>`, mTop+ph/2, colorText, esc(title(h.Y, by)))
	// The legend: ten steps of the scale, the highest on top.
	lx, steps := HeatmapWidth-mRight+14, 10
	sh := ph / float64(steps)
	fmt.Fprintf(&b, `<g class="legend"><text x="%.1f" y="%.1f" fill="%s">best primary</text>`, lx-4, mTop+6, colorText)
	for k := range steps {
		p := hi - (hi-lo)*(float64(k)+0.5)/float64(steps)
		fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="12" height="%.1f" fill="%s"/>`, lx, mTop+14+float64(k)*sh*0.85, sh*0.85+0.5, hex(shade(p, lo, hi)))
	}
	fmt.Fprintf(&b, `<text class="legend-hi" x="%.1f" y="%.1f" fill="%s">%.3f</text><text class="legend-lo" x="%.1f" y="%.1f" fill="%s">%.3f</text></g>`,
		lx+15, mTop+24, colorText, hi, lx+15, mTop+14+ph*0.85, colorText, lo)
	fmt.Fprintf(&b, `<desc>%s</desc></svg>`, esc(fmt.Sprintf("primary (%s)", measure)))
	return template.HTML(b.String()) // every text inside was escaped above
}

// heatmapData is a heatmap's cells as a table, x then y ascending.
func heatmapData(h Heatmap, bx, by binning, cells [][]cell, measure string) template.HTML {
	var rows [][]string
	for i := range cells {
		for j, c := range cells[i] {
			if c.count == 0 {
				continue
			}
			rows = append(rows, []string{bx.label(i), by.label(j), fmt.Sprint(c.count), fmt.Sprintf("%.4f", c.best.Primary), c.best.Name})
		}
	}
	return dataTable(fmt.Sprintf("best primary (%s) by %s and %s", measure, h.X, h.Y), []string{h.X, h.Y, "trials", "best primary", "best trial"}, rows)
}
