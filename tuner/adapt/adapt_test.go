package adapt_test

import (
	"math"
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/backend/fusion"
	"github.com/fusiontune/fusiontune/tuner/adapt"
)

// matrix of 8 queries and 2 arms: arm 0 wins on short queries (tokens <
// 5), arm 1 on long ones; "constant" is 1 for every query.
func matrix() *adapt.Matrix {
	m := &adapt.Matrix{Arms: []fusion.Settings{{Fusion: fusion.Params{K: 10}}, {Fusion: fusion.Params{K: 60}}}, Names: []string{"a", "b"}}
	for i := range 8 {
		tokens := float64(2 + i) // 2..9
		row := []float64{0.8, 0.2}
		if tokens >= 5 {
			row = []float64{0.3, 0.6}
		}
		m.Queries = append(m.Queries, string(rune('a'+i)))
		m.Scores = append(m.Scores, row)
		m.Features = append(m.Features, map[string]float64{"query_tokens": tokens, "constant": 1})
	}
	return m
}

func all(n int) []int {
	qs := make([]int, n)
	for i := range qs {
		qs[i] = i
	}
	return qs
}

func TestLearn(t *testing.T) {
	m := matrix()
	tests := []struct {
		name string
		o    adapt.Options
		want string // the tree, rendered
	}{
		// Global totals: arm 0 = 3*0.8 + 5*0.3 = 3.9, arm 1 = 3*0.2 + 5*0.6 = 3.6.
		{"no levels: the global best", adapt.Options{Levels: 0, MinLeaf: 1}, "use 0 (8)\n"},
		// Splitting at 4.5 (between 4 and 5) gains 2.4 + 3.0 - 3.9 = 1.5.
		{"one split", adapt.Options{Levels: 1, MinLeaf: 1}, "if query_tokens < 4.5:\n    use 0 (3)\nelse:\n    use 1 (5)\n"},
		// Leaves of 4 queries: the best split is at 5.5 (3 short + 1 long | 4 long).
		{"min leaf 4", adapt.Options{Levels: 1, MinLeaf: 4}, "if query_tokens < 5.5:\n    use 0 (4)\nelse:\n    use 1 (4)\n"},
		// Leaves of 5 queries cannot split 8.
		{"min leaf 5", adapt.Options{Levels: 1, MinLeaf: 5}, "use 0 (8)\n"},
		// Only a constant feature: nothing to split on.
		{"constant only", adapt.Options{Levels: 2, MinLeaf: 1, Features: []string{"constant"}}, "use 0 (8)\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := &fusion.Policy{Arms: m.Arms, Tree: m.Learn(all(8), tc.o)}
			got := p.Rules(func(s fusion.Settings) string {
				if s.Fusion.K == 10 {
					return "0"
				}
				return "1"
			})
			got = strings.NewReplacer("   (", " (", " training queries)", ")").Replace(got)
			if got != tc.want {
				t.Errorf("tree\n%s want\n%s", got, tc.want)
			}
		})
	}
}

func TestCrossValidate(t *testing.T) {
	m := matrix()
	h := m.CrossValidate(adapt.Options{Folds: 2, Seed: 3, Levels: 1, MinLeaf: 1})
	if len(h.Policy) != 8 || len(h.Global) != 8 || len(h.Oracle) != 8 {
		t.Fatalf("held-out lengths %d %d %d, want 8", len(h.Policy), len(h.Global), len(h.Oracle))
	}
	// The oracle takes each query's best arm.
	if got, want := adapt.Mean(h.Oracle), (3*0.8+5*0.6)/8; math.Abs(got-want) > 1e-12 {
		t.Errorf("oracle %v, want %v", got, want)
	}
	for q := range 8 {
		if h.Policy[q] > h.Oracle[q] || h.Global[q] > h.Oracle[q] {
			t.Errorf("query %d above its oracle", q)
		}
	}
	// Same seed, same folds; folds differ in size by at most one.
	f1, f2 := adapt.Folds(8, 3, 9), adapt.Folds(8, 3, 9)
	count := map[int]int{}
	for i := range f1 {
		if f1[i] != f2[i] {
			t.Fatal("folds differ under one seed")
		}
		count[f1[i]]++
	}
	if count[0] != 3 || count[1] != 3 || count[2] != 2 {
		t.Errorf("fold sizes %v, want 3, 3, 2", count)
	}
}

func TestOptionsValidate(t *testing.T) {
	tests := []struct {
		name string
		o    adapt.Options
		n    int
		want string
	}{
		{"defaults", adapt.DefaultOptions(), 300, ""},
		{"folds low", adapt.Options{Folds: 1, MinLeaf: 1}, 300, "folds: must be in [2, 20] (got 1)"},
		{"folds high", adapt.Options{Folds: 21, MinLeaf: 1}, 300, "folds: must be in [2, 20] (got 21)"},
		{"folds vs queries", adapt.Options{Folds: 6, MinLeaf: 1}, 10, "folds: 6 folds need at least 12 queries (got 10)"},
		{"levels", adapt.Options{Folds: 5, Levels: -1, MinLeaf: 1}, 300, "levels: must be in [0, 8] (got -1)"},
		{"min leaf", adapt.Options{Folds: 5}, 300, "min-leaf: must be >= 1 (got 0)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.o.Validate(tc.n)
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
}
