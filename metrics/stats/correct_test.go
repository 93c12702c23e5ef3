package stats_test

import (
	"math"
	"testing"

	"github.com/fusiontune/fusiontune/metrics/stats"
)

// TestAdjust checks the corrections against their definitions, the values
// R's p.adjust(p, "holm") and p.adjust(p, "BH") give:
// Holm (1979): sorted p(i)·(m-i+1), made monotone upward;
// Benjamini & Hochberg (1995): sorted p(i)·m/i, made monotone downward.
func TestAdjust(t *testing.T) {
	nan := math.NaN()
	for _, tc := range []struct {
		name, method string
		p, want      []float64
	}{
		{"holm", stats.Holm, []float64{0.01, 0.04, 0.03, 0.005}, []float64{0.03, 0.06, 0.06, 0.02}},
		{"bh", stats.BH, []float64{0.01, 0.04, 0.03, 0.005}, []float64{0.02, 0.04, 0.04, 0.02}},
		{"holm caps at 1", stats.Holm, []float64{0.5, 0.6}, []float64{1, 1}},
		{"nan is not counted", stats.Holm, []float64{0.01, nan, 0.02}, []float64{0.02, nan, 0.02}},
		{"none", stats.None, []float64{0.2, 0.01}, []float64{0.2, 0.01}},
		// R's p.adjust documentation example has no closed-form
		// values; this one is from Benjamini & Hochberg (1995), §4: the
		// 15 p-values of the myocardial-infarction study; at q = 0.05 the
		// first four are rejected (adjusted ≤ 0.05), the fifth (0.0278) is
		// not.
		{"bh paper", stats.BH,
			[]float64{0.0001, 0.0004, 0.0019, 0.0095, 0.0201, 0.0278, 0.0298, 0.0344, 0.0459, 0.3240, 0.4262, 0.5719, 0.6528, 0.7590, 1.0},
			nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := stats.Adjust(tc.p, tc.method)
			if err != nil {
				t.Fatal(err)
			}
			if tc.want == nil {
				for i, v := range got {
					if (i < 4) != (v <= 0.05) {
						t.Errorf("p[%d]=%v adjusted %v: rejection differs from the paper (first four)", i, tc.p[i], v)
					}
				}
				return
			}
			for i := range tc.want {
				near(t, tc.method, got[i], tc.want[i], 1e-12)
			}
		})
	}
	if _, err := stats.Adjust([]float64{0.1}, "bonferonni"); err == nil {
		t.Error("unknown method accepted")
	}
}
