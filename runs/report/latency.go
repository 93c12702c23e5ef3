package report

import (
	"fmt"
	"html/template"
	"sort"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/fusiontune/fusiontune/runs"
)

// latencyView is the report's latency section, from latency.json: the
// quality × p95 scatter with its Pareto front, and the table of the
// measured trials (the leaderboard view's --pareto rows).
type latencyView struct {
	Chart template.HTML
	Rows  [][]string
	Head  []string
	Front []string
	Note  string
	// Constraints and Winner: score.constraints and the trial they leave.
	Constraints []string
	Winner      string
}

// newLatencyView joins lb with the run's latency.json; nil without one or
// without a measured trial.
func newLatencyView(run *runs.Run, lb runs.Leaderboard) (*latencyView, error) {
	l, ok, err := run.ReadLatency()
	if err != nil || !ok {
		return nil, err
	}
	pv := lb.Pareto(l)
	if len(pv.Trials) == 0 {
		return nil, nil
	}
	v := &latencyView{Note: l.Note, Constraints: l.Constraints, Winner: l.Winner,
		Head: []string{"#", "trial", "primary", "p50 ms", "p95 ms", "p99 ms", "qps", "p95 range ms", "from", "front"}}
	for _, r := range pv.Trials {
		v.Rows = append(v.Rows, r.Cells())
	}
	for _, p := range pv.Front {
		v.Front = append(v.Front, p.Name)
	}
	if v.Chart, err = paretoChart(pv, l.P95LimitMS); err != nil {
		return nil, err
	}
	return v, nil
}

// paretoChart plots each measured trial at (p95 ms, primary): the front's
// trials as rings joined by a step line, excluded trials as triangles, and
// the latency.p95 constraint's threshold (limit, when set) as a dashed
// vertical line.
func paretoChart(pv runs.ParetoView, limit *float64) (template.HTML, error) {
	p := newPlot("primary × p95 latency", "p95 latency (ms)", "primary")
	var others, excluded, front plotter.XYs
	for _, r := range pv.Trials {
		xy := plotter.XY{X: r.Latency.P95MS, Y: r.Primary}
		switch {
		case r.Front:
			front = append(front, xy)
		case r.Excluded:
			excluded = append(excluded, xy)
		default:
			others = append(others, xy)
		}
	}
	if len(front) > 1 {
		l, err := plotter.NewLine(frontSteps(front))
		if err != nil {
			return "", fmt.Errorf("report: latency chart: %w", err)
		}
		l.Color, l.Width = colorBest, vg.Points(1)
		p.Add(l)
	}
	for _, s := range []struct {
		xy    plotter.XYs
		style draw.GlyphStyle
	}{
		{excluded, draw.GlyphStyle{Color: colorPruned, Radius: 3, Shape: draw.TriangleGlyph{}}},
		{others, draw.GlyphStyle{Color: colorOther, Radius: 3, Shape: draw.CircleGlyph{}}},
		{front, draw.GlyphStyle{Color: colorBest, Radius: 4, Shape: draw.RingGlyph{}}},
	} {
		if len(s.xy) == 0 {
			continue
		}
		sc, err := plotter.NewScatter(s.xy)
		if err != nil {
			return "", fmt.Errorf("report: latency chart: %w", err)
		}
		sc.GlyphStyle = s.style
		p.Add(sc)
	}
	if limit != nil {
		if err := addLimitLine(p, *limit); err != nil {
			return "", err
		}
	}
	if p.X.Min > 0 {
		p.X.Min = 0
	}
	padX(p)
	padY(p)
	return render(p, 14*vg.Centimeter, 8*vg.Centimeter)
}

// frontSteps is the Pareto front as a step line, the best primary within
// each latency budget: flat until the next front trial's p95, then up.
// It sorts front by p95 in place.
func frontSteps(front plotter.XYs) plotter.XYs {
	sort.Slice(front, func(i, j int) bool { return front[i].X < front[j].X })
	var steps plotter.XYs
	for i, pt := range front {
		if i > 0 {
			steps = append(steps, plotter.XY{X: pt.X, Y: front[i-1].Y})
		}
		steps = append(steps, pt)
	}
	return steps
}

// addLimitLine draws x = limit across the plot's primary range as a
// dashed line, named in the legend.
func addLimitLine(p *plot.Plot, limit float64) error {
	lo, hi := p.Y.Min, p.Y.Max
	if lo == hi {
		lo, hi = lo-0.01, hi+0.01
	}
	l, err := plotter.NewLine(plotter.XYs{{X: limit, Y: lo}, {X: limit, Y: hi}})
	if err != nil {
		return fmt.Errorf("report: latency chart: %w", err)
	}
	l.Color, l.Width, l.Dashes = colorPruned, vg.Points(1), []vg.Length{vg.Points(4), vg.Points(3)}
	p.Add(l)
	p.Legend.Add(fmt.Sprintf("constraint p95 ≤ %g ms", limit), l)
	// Bottom right: slow and poor, where the fewest trials sit.
	p.Legend.TextStyle.Font = font.From(chartFont, 9)
	return nil
}
