package treceval

import (
	"slices"
	"testing"
)

// TestSplitGluedArgs: -l2 and -mP.10 split; -m=P.10, other flags and
// anything after -- stay.
func TestSplitGluedArgs(t *testing.T) {
	for _, tc := range []struct{ in, want []string }{
		{[]string{"-l2", "-mP.10", "q", "r"}, []string{"-l", "2", "-m", "P.10", "q", "r"}},
		{[]string{"-m=P.10", "-q", "-m", "map"}, []string{"-m=P.10", "-q", "-m", "map"}},
		{[]string{"-c", "--", "-l2"}, []string{"-c", "--", "-l2"}},
	} {
		if got := SplitGluedArgs(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("SplitGluedArgs(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
