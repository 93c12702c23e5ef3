package chart

import (
	"fmt"
	"math"
	"slices"

	"github.com/fusiontune/fusiontune/internal/paramtext"
)

// maxValueBins is the most distinct values of a numeric parameter that
// get a bin each; more (sampled values) are cut into valueBins bins of
// equal width, on a log scale when the values are geometric.
const (
	maxValueBins = 8
	valueBins    = 6
)

// binning groups a numeric parameter's values: each distinct value its
// own bin, or equal-width ranges between edges.
type binning struct {
	scale  string    // Linear or Log
	values []float64 // the distinct values, one bin each; nil when ranged
	edges  []float64 // the ranges' edges (len = bins + 1)
}

// newBinning bins xs (distinct, sorted, at least two).
func newBinning(xs []float64) binning {
	b := binning{scale: Linear}
	if geometric(xs) {
		b.scale = Log
	}
	if len(xs) <= maxValueBins {
		b.values = xs
		return b
	}
	lo, hi := xs[0], xs[len(xs)-1]
	for i := range valueBins + 1 {
		f := float64(i) / valueBins
		if b.scale == Log {
			b.edges = append(b.edges, lo*math.Pow(hi/lo, f))
		} else {
			b.edges = append(b.edges, lo+(hi-lo)*f)
		}
	}
	b.edges[valueBins] = hi // exactly, whatever the rounding
	return b
}

// n is the number of bins.
func (b binning) n() int {
	if b.values != nil {
		return len(b.values)
	}
	return len(b.edges) - 1
}

// index is the bin of x (a value the binning was made from); the last
// range holds its upper edge.
func (b binning) index(x float64) int {
	if b.values != nil {
		return slices.Index(b.values, x)
	}
	i, _ := slices.BinarySearch(b.edges, x)
	if i < len(b.edges) && b.edges[i] == x {
		i++ // [edge, next edge)
	}
	return min(max(i-1, 0), b.n()-1)
}

// label names bin i: its value, or its range ("0.2–0.4").
func (b binning) label(i int) string {
	if b.values != nil {
		return paramtext.Number(b.values[i])
	}
	return fmt.Sprintf("%s–%s", paramtext.Number(b.edges[i]), paramtext.Number(b.edges[i+1]))
}

// binTick is a labelled place on a binned axis: at (in bins from the
// axis's start) a value's bin's middle, or a range's edge.
type binTick struct {
	at    float64
	label string
	value float64
}

// ticks label each value at its bin's middle, or each range's edges.
func (b binning) ticks() []binTick {
	var ts []binTick
	if b.values != nil {
		for i, v := range b.values {
			ts = append(ts, binTick{at: float64(i) + 0.5, label: paramtext.Number(v), value: v})
		}
		return ts
	}
	for i, e := range b.edges {
		ts = append(ts, binTick{at: float64(i), label: paramtext.Number(e), value: e})
	}
	return ts
}
