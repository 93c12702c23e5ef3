package metrics

import (
	"math"
	"testing"
)

// TestAveragePrecision: AP against hand-computed values — precision at each
// relevant document retrieved, averaged over all the query's relevant
// documents (those not retrieved count 0).
func TestAveragePrecision(t *testing.T) {
	for _, tc := range []struct {
		name      string
		g         []int
		threshold int
		numRel    int
		want      float64
	}{
		{"no relevant documents", []int{1, 2}, 1, 0, 0},
		{"all at the top", []int{2, 1, 0}, 1, 2, 1},
		{"ranks 2 and 4", []int{0, 1, 0, 3}, 1, 2, (1.0/2 + 2.0/4) / 2},
		{"one of three retrieved", []int{0, 0, 2}, 1, 3, (1.0 / 3) / 3},
		{"threshold 2", []int{1, 2, 1, 2}, 2, 2, (1.0/2 + 2.0/4) / 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := averagePrecision(tc.g, tc.threshold, tc.numRel); math.Abs(got-tc.want) > 1e-15 {
				t.Errorf("averagePrecision = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestF1: the harmonic mean of precision and recall, 0 when both are 0.
func TestF1(t *testing.T) {
	for _, tc := range []struct {
		prec, rec, want float64
	}{
		{0, 0, 0},
		{1, 1, 1},
		{0.5, 1, 2 * 0.5 / 1.5},
		{0.2, 0, 0},
	} {
		if got := f1(tc.prec, tc.rec); math.Abs(got-tc.want) > 1e-15 {
			t.Errorf("f1(%v, %v) = %v, want %v", tc.prec, tc.rec, got, tc.want)
		}
	}
}
