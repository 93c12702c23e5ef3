package stats_test

import (
	"math"
	"testing"

	"github.com/fusiontune/fusiontune/metrics/stats"
)

func TestKendallTau(t *testing.T) {
	for _, tc := range []struct {
		name string
		a, b []string
		want float64
	}{
		{"identical", []string{"a", "b", "c", "d"}, []string{"a", "b", "c", "d"}, 1},
		{"reversed", []string{"a", "b", "c", "d"}, []string{"d", "c", "b", "a"}, -1},
		// One swap among 4 items: 5 concordant, 1 discordant pair of 6.
		{"one swap", []string{"a", "b", "c", "d"}, []string{"b", "a", "c", "d"}, 4.0 / 6},
		// Union {a,b,c,d}: a = a,b,c,(d) with d missing -> ranks 0,1,2,3;
		// b = a,b,d,(c) -> ranks 0,1,3,2. Pairs: (c,d) discordant, the
		// other 5 concordant, no ties: tau = 4/6.
		{"different members", []string{"a", "b", "c"}, []string{"a", "b", "d"}, 4.0 / 6},
		// Two missing on each side: a=(x,y,[p,q]) b=(p,q,[x,y]).
		// x,y: concordant; p,q: tied in a, concordant in b -> tie in a;
		// x,p etc. (4 pairs): discordant; x,y tied in b -> tie in b.
		// conc 0, disc 4, tieA 1, tieB 1: tau = -4/sqrt(5·5) = -0.8.
		{"disjoint", []string{"x", "y"}, []string{"p", "q"}, -0.8},
	} {
		t.Run(tc.name, func(t *testing.T) {
			near(t, "tau", stats.KendallTau(tc.a, tc.b), tc.want, 1e-12)
		})
	}
	if v := stats.KendallTau([]string{"a"}, []string{"a"}); !math.IsNaN(v) {
		t.Errorf("one item: %v, want NaN", v)
	}
}

func TestJaccardAndTop1(t *testing.T) {
	a, b := []string{"a", "b", "c", "d"}, []string{"b", "e", "a", "f"}
	near(t, "jaccard@2", stats.JaccardAt(a, b, 2), 1.0/3, 1e-15) // {a,b} vs {b,e}
	near(t, "jaccard@3", stats.JaccardAt(a, b, 3), 2.0/4, 1e-15) // {a,b,c} vs {b,e,a}
	near(t, "jaccard empty", stats.JaccardAt(nil, nil, 3), 1, 0)
	got := stats.Top1Changed([][]string{a, b, {}, {}}, [][]string{a, a, {"x"}, {}})
	near(t, "top1 changed", got, 0.5, 1e-15)
}

func TestDiffClass(t *testing.T) {
	for _, tc := range []struct {
		a, b []string
		want string
	}{
		{[]string{"a", "b"}, []string{"a", "b"}, stats.DiffIdentical},
		{nil, nil, stats.DiffIdentical},
		{[]string{"a", "b"}, []string{"b", "a"}, stats.DiffMinor},
		{[]string{"a", "b"}, []string{"a", "c"}, stats.DiffMajor},
		{[]string{"a", "b"}, []string{"a"}, stats.DiffMajor},
		{[]string{"a"}, nil, stats.DiffMajor},
	} {
		if got := stats.DiffClass(tc.a, tc.b); got != tc.want {
			t.Errorf("DiffClass(%v, %v) = %s, want %s", tc.a, tc.b, got, tc.want)
		}
	}
}
