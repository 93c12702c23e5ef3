package experiments_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/fusiontune/fusiontune/experiments"
)

func splitFixture(n int) *experiments.GoldenSet {
	gs := &experiments.GoldenSet{}
	cats := []string{"lookup", "howto", "howto", "offtopic", "howto"}
	for i := range n {
		gs.Queries = append(gs.Queries, experiments.Query{ID: fmt.Sprintf("q%03d", i), Category: cats[i%len(cats)], ExpectedRouting: "search"})
	}
	return gs
}

func ids(gs *experiments.GoldenSet) []string {
	var out []string
	for _, q := range gs.Queries {
		out = append(out, q.ID)
	}
	return out
}

func TestSplit(t *testing.T) {
	tests := []struct {
		name     string
		n        int
		fraction float64
		wantDev  map[string]int // per category
	}{
		{"half", 100, 0.5, map[string]int{"lookup": 10, "howto": 30, "offtopic": 10}},
		{"rounded per category", 10, 0.3, map[string]int{"lookup": 1, "howto": 2, "offtopic": 1}},
		{"all dev", 10, 1, map[string]int{"lookup": 2, "howto": 6, "offtopic": 2}},
		{"clamped below", 10, -3, map[string]int{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			gs := splitFixture(tc.n)
			dev, test := gs.Split(7, tc.fraction)
			got := map[string]int{}
			for _, q := range dev.Queries {
				got[q.Category]++
			}
			for c, w := range tc.wantDev {
				if got[c] != w {
					t.Errorf("category %s: %d dev queries, want %d", c, got[c], w)
				}
			}
			if len(dev.Queries)+len(test.Queries) != tc.n {
				t.Errorf("dev %d + test %d != %d", len(dev.Queries), len(test.Queries), tc.n)
			}
			all := append(ids(dev), ids(test)...)
			slices.Sort(all)
			if !slices.Equal(all, ids(gs)) {
				t.Errorf("dev and test do not partition the set")
			}
			if dev.Part != "dev" || test.Part != "test" {
				t.Errorf("parts %q, %q", dev.Part, test.Part)
			}
		})
	}
}

func TestSplitIgnoresFileOrder(t *testing.T) {
	gs := splitFixture(60)
	dev, test := gs.Split(42, 0.5)
	shuffled := splitFixture(60)
	rand.New(rand.NewPCG(3, 4)).Shuffle(len(shuffled.Queries), func(i, j int) {
		shuffled.Queries[i], shuffled.Queries[j] = shuffled.Queries[j], shuffled.Queries[i]
	})
	dev2, test2 := shuffled.Split(42, 0.5)
	sorted := func(s []string) []string { slices.Sort(s); return s }
	if !slices.Equal(sorted(ids(dev)), sorted(ids(dev2))) || !slices.Equal(sorted(ids(test)), sorted(ids(test2))) {
		t.Errorf("split depends on query order")
	}
	other, _ := gs.Split(43, 0.5)
	if slices.Equal(ids(dev), ids(other)) {
		t.Errorf("seeds 42 and 43 give the same dev set")
	}
}

func TestSubset(t *testing.T) {
	gs := splitFixture(20)
	for _, name := range []string{"all", "", "dev", "test"} {
		sub, err := gs.Subset(name, 1, 0.5)
		if err != nil {
			t.Fatalf("%q: %v", name, err)
		}
		if want := map[string]int{"all": 20, "": 20, "dev": 10, "test": 10}[name]; len(sub.Queries) != want {
			t.Errorf("%q: %d queries, want %d", name, len(sub.Queries), want)
		}
	}
	if _, err := gs.Subset("train", 1, 0.5); err == nil {
		t.Error("unknown split accepted")
	}
}
