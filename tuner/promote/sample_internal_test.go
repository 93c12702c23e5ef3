package promote

import (
	"fmt"
	"testing"

	"github.com/fusiontune/fusiontune/tuner/scoring"
)

func TestSampleQueries(t *testing.T) {
	var qs []scoring.Query
	for i := 9; i >= 0; i-- { // out of order; odd ids unjudged
		q := scoring.Query{ID: fmt.Sprintf("q%d", i)}
		if i%2 == 0 {
			q.Judgments = map[string]int{"d": 1}
		}
		qs = append(qs, q)
	}
	ids := func(qs []scoring.Query) string {
		s := ""
		for _, q := range qs {
			s += q.ID + " "
		}
		return s
	}
	tests := []struct {
		n    int
		want string
	}{
		{n: 10, want: "q0 q2 q4 q6 q8 "},
		{n: 5, want: "q0 q2 q4 q6 q8 "},
		{n: 2, want: "q0 q4 "},
		{n: 3, want: "q0 q2 q6 "},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.n), func(t *testing.T) {
			if got := ids(sampleQueries(qs, tt.n)); got != tt.want {
				t.Errorf("sampleQueries(%d) = %q, want %q", tt.n, got, tt.want)
			}
		})
	}
}
