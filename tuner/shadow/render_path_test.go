package shadow

import (
	"bytes"
	"strings"
	"testing"
)

// TestWritePath: the text report shows the log-likelihood ratio paths at
// up to ten evenly spaced query counts, ending where the test stopped.
func TestWritePath(t *testing.T) {
	seq := func(n int) []float64 {
		out := make([]float64, n)
		for i := range out {
			out[i] = float64(i+1) / 4
		}
		return out
	}
	for _, tc := range []struct {
		n    int
		want string
	}{
		{0, ""},
		{3, "  queries                       1        2        3\n" +
			"  better (+effect vs 0)     0.250    0.500    0.750\n" +
			"  worse (-effect vs 0)      0.250    0.500    0.750\n"},
		{19, "  queries                       2        4        6        8       10       12       14       16       18       19\n"},
	} {
		var b bytes.Buffer
		writePath(&b, seq(tc.n), seq(tc.n))
		got := b.String()
		if tc.want == "" {
			if got != "" {
				t.Errorf("n %d: %q, want nothing", tc.n, got)
			}
			continue
		}
		if !strings.HasPrefix(got, "log-likelihood ratio path:\n") || !strings.Contains(got, tc.want) {
			t.Errorf("n %d:\n%s\nwant it to contain\n%s", tc.n, got, tc.want)
		}
	}
}
