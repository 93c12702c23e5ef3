package fusion

import (
	"encoding/json"
	"os"
	"slices"
	"testing"
)

// TestRustSortUnstable checks the port of Rust's sort_unstable_by against
// the orders Rust itself gives (testdata/rustsort/main.rs wrote
// rustsort.golden.json): scores with many ties, lengths on both sides of
// every threshold (20: insertion sort, 32: the small-sort, 64: the
// recursive pivot), and already sorted or reversed inputs.
func TestRustSortUnstable(t *testing.T) {
	b, err := os.ReadFile("testdata/rustsort.golden.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		Scores []float32 `json:"scores"`
		Order  []uint32  `json:"order"`
	}
	if err := json.Unmarshal(b, &cases); err != nil {
		t.Fatal(err)
	}
	if len(cases) < 100 {
		t.Fatalf("%d cases, want the generator's 109", len(cases))
	}
	type pair struct {
		row   uint32
		score float32
	}
	unstable := 0
	for i, c := range cases {
		v := make([]pair, len(c.Scores))
		for j, s := range c.Scores {
			v[j] = pair{uint32(j), s}
		}
		rustSortUnstable(v, func(a, b *pair) bool { return a.score > b.score })
		got := make([]uint32, len(v))
		for j, p := range v {
			got[j] = p.row
		}
		if !slices.Equal(got, c.Order) {
			t.Errorf("case %d (%d scores): got %v, Rust gives %v", i, len(c.Scores), got, c.Order)
		}
		if !slices.IsSortedFunc(got, func(a, b uint32) int {
			return -cmpFloat32(c.Scores[a], c.Scores[b])
		}) {
			t.Errorf("case %d: not sorted", i)
		}
		stable := make([]uint32, len(got))
		for j := range stable {
			stable[j] = uint32(j)
		}
		slices.SortStableFunc(stable, func(a, b uint32) int { return -cmpFloat32(c.Scores[a], c.Scores[b]) })
		if !slices.Equal(stable, got) {
			unstable++
		}
	}
	if unstable == 0 {
		t.Errorf("every order equals a stable sort's: the cases do not exercise the unstable paths")
	}
}

func cmpFloat32(a, b float32) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
