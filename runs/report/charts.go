package report

import (
	"bytes"
	"fmt"
	"html"
	"html/template"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Chart colours: the best trial, the baseline, every other trial and
// pruned ones (the parameter charts, runs/chart, draw in the same).
var (
	colorBest     = color.RGBA{R: 0xc0, G: 0x39, B: 0x2b, A: 0xff}
	colorBaseline = color.RGBA{R: 0x7f, G: 0x8c, B: 0x8d, A: 0xff}
	colorOther    = color.NRGBA{R: 0x29, G: 0x80, B: 0xb9, A: 0xb0} // see-through: stacked trials look darker
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
