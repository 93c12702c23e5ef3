package report

import (
	"bytes"
	"fmt"
	"html"
	"html/template"
	"image/color"
	"math"
	"sort"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/fusiontune/fusiontune/runs"
)

// Chart colours: the best trial, the baseline, every other trial, the
// line through the best scores, and pruned trials.
var (
	colorBest     = color.RGBA{R: 0xc0, G: 0x39, B: 0x2b, A: 0xff}
	colorBaseline = color.RGBA{R: 0x7f, G: 0x8c, B: 0x8d, A: 0xff}
	colorOther    = color.NRGBA{R: 0x29, G: 0x80, B: 0xb9, A: 0xb0} // see-through: stacked trials look darker
	colorLine     = color.NRGBA{R: 0x29, G: 0x80, B: 0xb9, A: 0x80}
	colorPruned   = color.NRGBA{R: 0xa0, G: 0xa0, B: 0xa0, A: 0xc0}
)

// chartFont is the sans-serif face of the Liberation family that
// gonum/plot ships; browsers without it fall back to their sans-serif.
var chartFont = font.Font{Typeface: "Liberation", Variant: "Sans"}

// newPlot returns a plot with the report's fonts and a light grid.
func newPlot(title, xLabel, yLabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font = font.From(chartFont, 11)
	p.X.Label.Text, p.Y.Label.Text = xLabel, yLabel
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font = font.From(chartFont, 10)
		a.Tick.Label.Font = font.From(chartFont, 9)
	}
	g := plotter.NewGrid()
	g.Vertical.Color = color.Gray{Y: 0xe6}
	g.Horizontal.Color = color.Gray{Y: 0xe6}
	g.Vertical.Width, g.Horizontal.Width = vg.Points(0.5), vg.Points(0.5)
	p.Add(g)
	return p
}

// render draws p as an SVG element (without the XML prolog) of w×h points.
func render(p *plot.Plot, w, h vg.Length) (template.HTML, error) {
	c := vgsvg.New(w, h)
	p.Draw(draw.New(c))
	var b bytes.Buffer
	if _, err := c.WriteTo(&b); err != nil {
		return "", fmt.Errorf("report: draw chart %q: %w", p.Title.Text, err)
	}
	out := b.Bytes()
	i := bytes.Index(out, []byte("<svg"))
	if i < 0 {
		return "", fmt.Errorf("report: draw chart %q: no <svg> element in the canvas output", p.Title.Text)
	}
	// Drop the XML prolog and name the chart for screen readers.
	named := `<svg role="img" aria-label="` + html.EscapeString(p.Title.Text) + `"`
	return svg(append([]byte(named), out[i+len("<svg"):]...)), nil
}

// bar is one bar of the category chart, with its interval when known.
type bar struct {
	mean, low, high float64
	interval        bool
}

// categoryChart draws grouped bars per category: one series per trial
// shown, with interval whiskers where intervals were recorded.
func categoryChart(cats []string, series []barSeries) (template.HTML, error) {
	p := newPlot("Primary score per category", "", "primary")
	p.Y.Min = 0
	n := len(series)
	width := 0.7 / float64(n)
	var ticks []plot.Tick
	for i, c := range cats {
		ticks = append(ticks, plot.Tick{Value: float64(i), Label: c})
	}
	p.X.Tick.Marker = plot.ConstantTicks(ticks)
	p.X.Min, p.X.Max = -0.6, float64(len(cats))-0.4
	if len(cats) > 6 {
		p.X.Tick.Label.Rotation = math.Pi / 6
		p.X.Tick.Label.XAlign, p.X.Tick.Label.YAlign = draw.XRight, draw.YCenter
	}
	for s, ser := range series {
		var errs plotter.XYs
		var lows, highs []float64
		for i := range cats {
			b, ok := ser.bars[cats[i]]
			if !ok {
				continue
			}
			x0 := float64(i) - 0.35 + float64(s)*width
			poly, err := plotter.NewPolygon(plotter.XYs{{X: x0, Y: 0}, {X: x0 + width*0.9, Y: 0}, {X: x0 + width*0.9, Y: b.mean}, {X: x0, Y: b.mean}})
			if err != nil {
				return "", fmt.Errorf("report: category chart: %w", err)
			}
			poly.Color = ser.color
			poly.LineStyle.Width = 0
			p.Add(poly)
			if b.interval {
				errs = append(errs, plotter.XY{X: x0 + width*0.45, Y: b.mean})
				lows, highs = append(lows, b.mean-b.low), append(highs, b.high-b.mean)
			}
		}
		if len(errs) > 0 {
			eb, err := plotter.NewYErrorBars(intervals{errs, lows, highs})
			if err != nil {
				return "", fmt.Errorf("report: category chart: %w", err)
			}
			eb.LineStyle.Width = vg.Points(1)
			p.Add(eb)
		}
	}
	p.Y.Max *= 1.06 // room above the tallest whisker
	return render(p, 15*vg.Centimeter, 7.5*vg.Centimeter)
}

type barSeries struct {
	color color.Color
	bars  map[string]bar
}

// intervals adapts means with asymmetric half-widths to plotter.YErrorer.
type intervals struct {
	plotter.XYs
	low, high []float64
}

func (iv intervals) YError(i int) (float64, float64) { return iv.low[i], iv.high[i] }

// paramChart is the primary score against one tuned parameter.
type paramChart struct {
	Name string
	Kind string // numeric or categorical
	SVG  template.HTML
	Line bool // a line joins the best score at each value
}

// maxLineValues is the most distinct values a numeric parameter may take
// for its chart to join the best score at each value: beyond it (sampled
// continuous values) a line would only zigzag between single trials.
const maxLineValues = 12

// paramCharts draws one chart per varying parameter over the successful
// and pruned trials (pruned ones at their partial score); parameters with
// fewer than two values among them are skipped.
func paramCharts(entries []runs.Entry, varying []string, best, baseline string) ([]paramChart, error) {
	var drawn []runs.Entry
	for _, e := range entries {
		if e.Status == runs.StatusOK || e.Status == runs.StatusPruned {
			drawn = append(drawn, e)
		}
	}
	var out []paramChart
	for _, k := range varying {
		levels := map[string]bool{}
		numeric := true
		for _, e := range drawn {
			levels[paramText(e.Params, k)] = true
			if _, isNum := paramNumber(e.Params, k); !isNum {
				numeric = false
			}
		}
		if len(levels) < 2 {
			continue
		}
		var (
			ch  = paramChart{Name: k, Kind: "categorical"}
			err error
		)
		if numeric {
			ch.Kind = "numeric"
			ch.SVG, ch.Line, err = numericChart(k, drawn, best, baseline)
		} else {
			ch.SVG, err = categoricalChart(k, drawn, levels, best, baseline)
		}
		if err != nil {
			return nil, err
		}
		out = append(out, ch)
	}
	return out, nil
}

// numericChart plots every trial as a point. When the successful trials
// repeat values (a grid), a line joins the best score at each value.
func numericChart(key string, drawn []runs.Entry, best, baseline string) (template.HTML, bool, error) {
	p := newPlot(key, key, "primary")
	top := map[float64]float64{}
	repeated := false
	pts := map[string]plotter.XYs{}
	for _, e := range drawn {
		x, _ := paramNumber(e.Params, key)
		r := role(e, best, baseline)
		pts[r] = append(pts[r], plotter.XY{X: x, Y: e.Primary})
		if e.Status != runs.StatusOK {
			continue
		}
		y, seen := top[x]
		repeated = repeated || seen
		if !seen || e.Primary > y {
			top[x] = e.Primary
		}
	}
	line := repeated && len(top) <= maxLineValues
	if line {
		xs := make([]float64, 0, len(top))
		for x := range top {
			xs = append(xs, x)
		}
		sort.Float64s(xs)
		xy := make(plotter.XYs, len(xs))
		for i, x := range xs {
			xy[i] = plotter.XY{X: x, Y: top[x]}
		}
		l, err := plotter.NewLine(xy)
		if err != nil {
			return "", false, fmt.Errorf("report: chart %q: %w", key, err)
		}
		l.Color = colorLine
		l.Width = vg.Points(1)
		p.Add(l)
	}
	if err := addPoints(p, pts); err != nil {
		return "", false, fmt.Errorf("report: chart %q: %w", key, err)
	}
	padX(p)
	padY(p)
	svg, err := render(p, 9*vg.Centimeter, 6.5*vg.Centimeter)
	return svg, line, err
}

// categoricalChart plots every trial as a point above its value's label.
func categoricalChart(key string, drawn []runs.Entry, levels map[string]bool, best, baseline string) (template.HTML, error) {
	p := newPlot(key, key, "primary")
	names := make([]string, 0, len(levels))
	for l := range levels {
		names = append(names, l)
	}
	sort.Strings(names)
	pos := map[string]float64{}
	var ticks []plot.Tick
	for i, n := range names {
		pos[n] = float64(i)
		ticks = append(ticks, plot.Tick{Value: float64(i), Label: n})
	}
	pts := map[string]plotter.XYs{}
	for _, e := range drawn {
		r := role(e, best, baseline)
		pts[r] = append(pts[r], plotter.XY{X: pos[paramText(e.Params, key)], Y: e.Primary})
	}
	if err := addPoints(p, pts); err != nil {
		return "", fmt.Errorf("report: chart %q: %w", key, err)
	}
	p.X.Tick.Marker = plot.ConstantTicks(ticks)
	p.X.Min, p.X.Max = -0.5, float64(len(names))-0.5
	padY(p)
	return render(p, 9*vg.Centimeter, 6.5*vg.Centimeter)
}

// Point roles, drawn in this order so the best trial is on top.
var roles = []struct {
	name  string
	color color.Color
	shape draw.GlyphDrawer
	size  vg.Length
}{
	{"pruned", colorPruned, draw.TriangleGlyph{}, 3},
	{"trial", colorOther, draw.CircleGlyph{}, 3},
	{"baseline", colorBaseline, draw.SquareGlyph{}, 4},
	{"best", colorBest, draw.RingGlyph{}, 5},
}

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

func addPoints(p *plot.Plot, pts map[string]plotter.XYs) error {
	for _, r := range roles {
		xy, ok := pts[r.name]
		if !ok {
			continue
		}
		s, err := plotter.NewScatter(xy)
		if err != nil {
			return err
		}
		s.GlyphStyle = draw.GlyphStyle{Color: r.color, Radius: r.size, Shape: r.shape}
		p.Add(s)
	}
	return nil
}

// padX widens a numeric x range by 5% on each side so that points at the
// ends are not cut by the axes.
func padX(p *plot.Plot) {
	d := (p.X.Max - p.X.Min) * 0.05
	if d == 0 {
		d = 1
	}
	p.X.Min -= d
	p.X.Max += d
}

// padY widens the y range by 8% on each side so that the best point is
// not drawn on the frame.
func padY(p *plot.Plot) {
	d := (p.Y.Max - p.Y.Min) * 0.08
	if d == 0 {
		d = 0.01
	}
	p.Y.Min -= d
	p.Y.Max += d
}
