package chart

import (
	"math"
	"slices"
	"unicode/utf8"

	"github.com/fusiontune/fusiontune/internal/paramtext"
)

// The axis scales.
const (
	Linear     = "linear"
	Log        = "log"
	Categories = "categories"
)

// defaultLabel marks the slot of the trials whose value of the parameter
// is not known (they leave it unset and the run recorded no default).
const defaultLabel = "default"

// maxValueTicks is the most distinct values labelled one by one; beyond
// it a numeric axis is labelled at round numbers.
const maxValueTicks = 8

// value is one trial's value of the parameter: a number, a category
// text, or unknown.
type value struct {
	num   float64
	text  string
	known bool
}

// tick is a labelled position on the x axis.
type tick struct {
	X     float64
	Label string
}

// xAxis places values between x0 and x1 (pixels).
type xAxis struct {
	scale string
	ticks []tick
	at    func(value) float64
}

// newXAxis lays out vals, numeric or not, between x0 and x1: numbers on a
// linear or (geometric values) log scale, with a slot for the unknown at
// x0 when there are any; strings side by side, sorted, the unknown first.
func newXAxis(vals []value, numeric bool, x0, x1 float64) xAxis {
	unknown := slices.ContainsFunc(vals, func(v value) bool { return !v.known })
	if !numeric {
		return categoryAxis(vals, unknown, x0, x1)
	}
	var xs []float64
	for _, v := range vals {
		if v.known && !slices.Contains(xs, v.num) {
			xs = append(xs, v.num)
		}
	}
	slices.Sort(xs)
	ax := xAxis{scale: Linear}
	f := func(x float64) float64 { return x }
	if geometric(xs) {
		ax.scale, f = Log, math.Log10
	}
	slot := x0
	if unknown {
		x0 += 28
	}
	lo, hi := f(xs[0]), f(xs[len(xs)-1])
	pad := (hi - lo) * 0.05
	lo, hi = lo-pad, hi+pad
	pos := func(x float64) float64 { return x0 + (f(x)-lo)/(hi-lo)*(x1-x0) }
	ax.at = func(v value) float64 {
		if !v.known {
			return slot + 6
		}
		return pos(v.num)
	}
	var ts []tick
	for _, x := range tickValues(xs, ax.scale) {
		ts = append(ts, tick{X: pos(x), Label: paramtext.Number(x)})
	}
	if unknown {
		ts = append([]tick{{X: slot + 6, Label: defaultLabel}}, ts...)
	}
	ax.ticks = thin(ts)
	return ax
}

// categoryAxis places each distinct text in a slot of its own, in sorted
// order, the unknown first.
func categoryAxis(vals []value, unknown bool, x0, x1 float64) xAxis {
	var texts []string
	for _, v := range vals {
		if v.known && !slices.Contains(texts, v.text) {
			texts = append(texts, v.text)
		}
	}
	slices.Sort(texts)
	if unknown {
		texts = append([]string{"(" + defaultLabel + ")"}, texts...)
	}
	w := (x1 - x0) / float64(len(texts))
	slotOf := func(t string) float64 { return x0 + (float64(slices.Index(texts, t))+0.5)*w }
	ax := xAxis{scale: Categories, at: func(v value) float64 {
		if !v.known {
			return slotOf(texts[0])
		}
		return slotOf(v.text)
	}}
	var ts []tick
	for _, t := range texts {
		ts = append(ts, tick{X: slotOf(t), Label: t})
	}
	ax.ticks = thin(ts)
	return ax
}

// geometric reports whether xs (distinct, sorted) are spread evenly on a
// log scale rather than a linear one: three or more positive values over
// at least a factor 4 whose gaps vary less in log space (5, 10, 20, 40)
// than in linear space (40, 60, 80). Sampled values (more than
// maxLineValues) have gaps as random as the sampler: they go on a log
// scale only when they span two decades or more and fill it more evenly
// in log space than in linear space (a log-uniform search), so that
// weights crowding near 1 stay linear.
func geometric(xs []float64) bool {
	if len(xs) < 3 || xs[0] <= 0 || xs[len(xs)-1]/xs[0] < 4 {
		return false
	}
	if len(xs) > maxLineValues {
		lo, hi := xs[0], xs[len(xs)-1]
		return hi/lo >= 100 &&
			unevenness(xs, func(x float64) float64 { return math.Log(x/lo) / math.Log(hi/lo) }) <
				unevenness(xs, func(x float64) float64 { return (x - lo) / (hi - lo) })
	}
	lin := make([]float64, len(xs)-1)
	lg := make([]float64, len(xs)-1)
	for i := range lin {
		lin[i] = xs[i+1] - xs[i]
		lg[i] = math.Log(xs[i+1] / xs[i])
	}
	return spread(lg) < spread(lin)
}

// unevenness is how far xs (sorted) are from filling their range evenly
// on the scale pos maps to [0, 1]: the largest gap between the share of
// values up to x and pos(x) (a Kolmogorov–Smirnov distance).
func unevenness(xs []float64, pos func(float64) float64) float64 {
	d := 0.0
	for i, x := range xs {
		p := pos(x)
		d = max(d, math.Abs(float64(i+1)/float64(len(xs))-p), math.Abs(float64(i)/float64(len(xs))-p))
	}
	return d
}

// spread is the coefficient of variation of gaps: their standard
// deviation over their mean.
func spread(gaps []float64) float64 {
	mean := 0.0
	for _, g := range gaps {
		mean += g
	}
	mean /= float64(len(gaps))
	v := 0.0
	for _, g := range gaps {
		v += (g - mean) * (g - mean)
	}
	return math.Sqrt(v/float64(len(gaps))) / mean
}

// tickValues are the values labelled on a numeric axis over xs (distinct,
// sorted): each of them when there are few, else round numbers within
// their range (1, 2 and 5 times a power of ten; on a log scale the powers
// of ten alone when those are too many).
func tickValues(xs []float64, scale string) []float64 {
	if len(xs) <= maxValueTicks {
		return xs
	}
	lo, hi := xs[0], xs[len(xs)-1]
	if scale == Log {
		var ts, powers []float64
		for e := math.Floor(math.Log10(lo)); e <= math.Ceil(math.Log10(hi)); e++ {
			p := math.Pow(10, e)
			for _, m := range []float64{1, 2, 5} {
				if t := m * p; t >= lo && t <= hi {
					ts = append(ts, t)
					if m == 1 {
						powers = append(powers, t)
					}
				}
			}
		}
		if len(ts) > 7 && len(powers) >= 2 {
			return powers
		}
		if len(ts) >= 2 {
			return ts
		}
	}
	step := niceStep((hi - lo) / 5)
	var ts []float64
	for t := math.Ceil(lo/step) * step; t <= hi+step*1e-9; t += step {
		ts = append(ts, math.Round(t/step)*step)
	}
	return ts
}

// niceStep is the round number (1, 2 or 5 times a power of ten) nearest
// raw by ratio.
func niceStep(raw float64) float64 {
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	best := p
	for _, m := range []float64{2, 5, 10} {
		if math.Abs(math.Log(m*p/raw)) < math.Abs(math.Log(best/raw)) {
			best = m * p
		}
	}
	return best
}

// thin drops the labels that would overlap the one kept before them,
// left to right (a label is about 6 pixels a character at the charts'
// 10-pixel font).
func thin(ts []tick) []tick {
	slices.SortStableFunc(ts, func(a, b tick) int {
		switch {
		case a.X < b.X:
			return -1
		case a.X > b.X:
			return 1
		}
		return 0
	})
	var out []tick
	right := math.Inf(-1)
	for _, t := range ts {
		half := 3.0*float64(utf8.RuneCountInString(t.Label)) + 3
		if t.X-half < right {
			continue
		}
		out = append(out, t)
		right = t.X + half
	}
	return out
}
