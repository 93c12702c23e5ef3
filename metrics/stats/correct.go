package stats

import (
	"fmt"
	"math"
	"sort"
)

// Multiple-comparison corrections accepted by Adjust.
const (
	Holm = "holm" // Holm–Bonferroni step-down, controls the family-wise error rate
	BH   = "bh"   // Benjamini–Hochberg step-up, controls the false discovery rate
	None = "none" // no correction
)

// Adjust returns the p-values adjusted for multiple comparisons by method
// (Holm, BH or None), in the order given, as R's p.adjust does. NaN
// p-values (tests that could not be run) stay NaN and do not count in the
// family size.
func Adjust(p []float64, method string) ([]float64, error) {
	out := make([]float64, len(p))
	var idx []int
	for i, v := range p {
		out[i] = math.NaN()
		if !math.IsNaN(v) {
			idx = append(idx, i)
		}
	}
	m := float64(len(idx))
	switch method {
	case None:
		for _, i := range idx {
			out[i] = p[i]
		}
	case Holm:
		sort.SliceStable(idx, func(a, b int) bool { return p[idx[a]] < p[idx[b]] })
		run := 0.0
		for k, i := range idx {
			run = math.Max(run, math.Min(1, (m-float64(k))*p[i]))
			out[i] = run
		}
	case BH:
		sort.SliceStable(idx, func(a, b int) bool { return p[idx[a]] > p[idx[b]] })
		run := 1.0
		for k, i := range idx {
			rank := m - float64(k) // rank in ascending order
			run = math.Min(run, math.Min(1, m/rank*p[i]))
			out[i] = run
		}
	default:
		return nil, fmt.Errorf("stats: unknown correction %q (expected %s, %s or %s)", method, Holm, BH, None)
	}
	return out, nil
}
