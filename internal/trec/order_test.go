package trec_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/internal/trec"
)

// TestCompare pins the tie rule to trec_eval's comp_sim_docno: score
// descending, then document id descending, byte-wise.
func TestCompare(t *testing.T) {
	in := []trec.Result{
		{DocNo: "a", Score: 1}, {DocNo: "B", Score: 1}, {DocNo: "b", Score: 1},
		{DocNo: "z", Score: 0.5}, {DocNo: "c", Score: 2}, {DocNo: "aa", Score: 1},
	}
	slices.SortFunc(in, trec.Compare)
	var got []string
	for _, r := range in {
		got = append(got, r.DocNo)
	}
	// "b" > "aa" > "a" > "B" byte-wise.
	if want := []string{"c", "b", "aa", "a", "B", "z"}; !slices.Equal(got, want) {
		t.Errorf("order %q, want %q", got, want)
	}
}

func TestCheckOrder(t *testing.T) {
	tests := []struct {
		name string
		in   []trec.Result
		want string // "" for in order
	}{
		{"empty", nil, ""},
		{"in order", []trec.Result{{DocNo: "a", Score: 2}, {DocNo: "b", Score: 1}, {DocNo: "a2", Score: 1}}, ""},
		{"tie by id ascending", []trec.Result{{DocNo: "d1", Score: 1}, {DocNo: "d2", Score: 1}},
			`query "q": rank 1 ("d1", score 1) does not rank above rank 2 ("d2", score 1)`},
		{"score ascending", []trec.Result{{DocNo: "d1", Score: 1}, {DocNo: "d2", Score: 2}}, `rank 1 ("d1", score 1)`},
		{"same document twice", []trec.Result{{DocNo: "d1", Score: 1}, {DocNo: "d1", Score: 1}}, `rank 1 ("d1"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := trec.CheckOrder("q", tt.in)
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("error %v, want none", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("error %v, want it to contain %q", err, tt.want)
			}
		})
	}
}
