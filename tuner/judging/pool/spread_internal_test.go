package pool

import "testing"

// TestSpread: the per-query pair counts are summed up by their smallest,
// largest and median (the mean of the middle two for an even count).
func TestSpread(t *testing.T) {
	for _, tc := range []struct {
		name   string
		counts []int
		lo, hi int
		median float64
	}{
		{"none", nil, 0, 0, 0},
		{"one", []int{4}, 4, 4, 4},
		{"odd, unsorted", []int{5, 0, 2}, 0, 5, 2},
		{"even: mean of the middle two", []int{3, 1, 4, 0}, 0, 4, 2},
		{"ties", []int{2, 2, 2, 2}, 2, 2, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lo, hi, median := spread(tc.counts)
			if lo != tc.lo || hi != tc.hi || median != tc.median {
				t.Errorf("spread = %d, %d, %v; want %d, %d, %v", lo, hi, median, tc.lo, tc.hi, tc.median)
			}
		})
	}
}
