package embed

import "testing"

// TestFormatVector: each value's shortest float32 decimal, in brackets.
func TestFormatVector(t *testing.T) {
	for _, tc := range []struct {
		v    []float32
		want string
	}{
		{nil, "[]"},
		{[]float32{0.1, -2, 1e-7}, "[0.1,-2,1e-07]"},
	} {
		if got := FormatVector(tc.v); got != tc.want {
			t.Errorf("FormatVector(%v) = %q, want %q", tc.v, got, tc.want)
		}
	}
}
