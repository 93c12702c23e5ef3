package judge_test

import (
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/tuner/judging/judge"
)

// TestReadPoolStrict: a pool written by tune judge pool or by hand reads; a
// duplicate key, a pair listed twice, a rank of 0, a negative priority or
// trial count is refused naming its line.
func TestReadPoolStrict(t *testing.T) {
	const ok = `{"dataset":"demo","query":"q1","doc":"d1","priority":1.5,"trials":2,"best_rank":1}`
	tests := []struct {
		name string
		in   string
		n    int
		want []string
	}{
		{name: "written by tune", in: ok + "\n", n: 1},
		{name: "by hand, numbers left out", in: `{"dataset":"demo","query":"q1","doc":"d1"}` + "\n" + `{"dataset":"demo","query":"q1","doc":"d2","priority":0}`, n: 2},
		{name: "empty", in: "\n\n"},
		{name: "duplicate key", in: `{"dataset":"demo","query":"q1","doc":"d1","doc":"d2"}`, want: []string{`p.jsonl:1: key "doc" given twice`}},
		{name: "rank 0", in: ok + "\n" + `{"dataset":"demo","query":"q1","doc":"d2","best_rank":0}`, want: []string{"p.jsonl:2: best_rank must be >= 1, ranks count from 1 (got 0)"}},
		{name: "negative priority and trials", in: `{"dataset":"demo","query":"q1","doc":"d2","priority":-1,"trials":-2}`,
			want: []string{"p.jsonl:1: priority must be >= 0 (got -1); trials must be >= 1 (got -2)"}},
		{name: "pair twice", in: ok + "\n" + ok, want: []string{`p.jsonl:2: query "q1" doc "d1" listed twice (first on line 1)`}},
		{name: "every problem at once", in: `{"dataset":"demo","query":"q1","doc":"d2","best_rank":0}` + "\n" + `{"dataset":"demo","query":"q1","doc":"d3","priority":-1}`,
			want: []string{"p.jsonl:1: best_rank", "p.jsonl:2: priority"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			es, err := judge.ReadPool(strings.NewReader(tt.in), "p.jsonl")
			if len(tt.want) == 0 {
				if err != nil || len(es) != tt.n {
					t.Fatalf("ReadPool = %d entries, %v; want %d", len(es), err, tt.n)
				}
				return
			}
			if err == nil {
				t.Fatalf("ReadPool = %+v, want an error", es)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q\nwant it to contain %q", err, w)
				}
			}
		})
	}
}
