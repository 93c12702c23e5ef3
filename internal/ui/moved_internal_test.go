package ui

import "testing"

// TestMoved: a fused row says how it moved from its rank under the
// trial's own settings.
func TestMoved(t *testing.T) {
	for _, tc := range []struct {
		was, now int
		want     string
	}{
		{3, 3, ""},
		{0, 2, "new"},
		{5, 2, "↑3"},
		{1, 4, "↓3"},
	} {
		if got := moved(tc.was, tc.now); got != tc.want {
			t.Errorf("moved(%d, %d) = %q, want %q", tc.was, tc.now, got, tc.want)
		}
	}
}
