package embed

import (
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestFixSigns: each column ends with its largest-magnitude entry
// positive, the first of equal magnitudes deciding, and keeps its
// magnitudes.
func TestFixSigns(t *testing.T) {
	for _, tt := range []struct {
		name     string
		rows     int
		in, want []float64
	}{
		{"flip and keep", 3, []float64{
			1, -5, 0,
			-3, 2, 0,
			2, 4, 0,
		}, []float64{
			-1, 5, 0,
			3, -2, 0,
			-2, -4, 0,
		}},
		{"ties: the first decides", 2, []float64{
			-2, 2,
			2, -2,
		}, []float64{
			2, 2,
			-2, -2,
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			v := mat.NewDense(tt.rows, len(tt.in)/tt.rows, slices.Clone(tt.in))
			fixSigns(v)
			if got := v.RawMatrix().Data; !slices.Equal(got, tt.want) {
				t.Errorf("fixSigns = %v, want %v", got, tt.want)
			}
		})
	}
}
