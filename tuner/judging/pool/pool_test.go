package pool_test

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/tuner/judging/pool"
)

func judgedSet(pairs ...string) pool.Judged {
	m := map[string]bool{}
	for _, p := range pairs {
		m[p] = true
	}
	return func(q, d string) bool { return m[q+"/"+d] }
}

func TestBuild(t *testing.T) {
	tests := []struct {
		name     string
		rankings []pool.Ranking
		judged   pool.Judged
		depth    int
		want     []pool.Pair
		stats    pool.Stats
	}{
		{
			name: "priority sums 1/rank over sources; judged pairs left out",
			rankings: []pool.Ranking{
				{Source: "a", Query: "q1", Docs: []string{"d1", "d2", "d3"}},
				{Source: "b", Query: "q1", Docs: []string{"d2", "d4", "d1"}},
			},
			judged: judgedSet("q1/d1"),
			depth:  3,
			// d2: 1/2 + 1/1 = 1.5 (2 sources, best 1); d4: 1/2; d3: 1/3.
			want: []pool.Pair{
				{Dataset: "x", Query: "q1", Doc: "d2", Priority: 1.5, Trials: 2, BestRank: 1},
				{Dataset: "x", Query: "q1", Doc: "d4", Priority: 0.5, Trials: 1, BestRank: 2},
				{Dataset: "x", Query: "q1", Doc: "d3", Priority: 0.333333, Trials: 1, BestRank: 3},
			},
			// judged in top 3: a has 1 (d1), b has 1 (d1): 1/3 each.
			stats: pool.Stats{Pairs: 3, Queries: 1, PerQueryMin: 3, PerQueryMedian: 3, PerQueryMax: 3, Sources: 2, K: 3,
				JudgedNow: 0.333333, JudgedIfAll: 1},
		},
		{
			name: "depth cuts; duplicates keep their first rank; ties by query then doc",
			rankings: []pool.Ranking{
				{Source: "a", Query: "q2", Docs: []string{"z", "z", "y", "w"}},
				{Source: "a", Query: "q1", Docs: []string{"z"}},
				{Source: "b", Query: "q3", Docs: nil},
			},
			judged: judgedSet(),
			depth:  2,
			want: []pool.Pair{
				{Dataset: "x", Query: "q1", Doc: "z", Priority: 1, Trials: 1, BestRank: 1},
				{Dataset: "x", Query: "q2", Doc: "z", Priority: 1, Trials: 1, BestRank: 1},
				{Dataset: "x", Query: "q2", Doc: "y", Priority: 0.5, Trials: 1, BestRank: 2},
			},
			// q1 has 1 pair, q2 2, q3 none; a short list cannot reach 1.
			stats: pool.Stats{Pairs: 3, Queries: 3, PerQueryMin: 0, PerQueryMedian: 1, PerQueryMax: 2, Sources: 2, K: 2,
				JudgedNow: 0, JudgedIfAll: 0.5},
		},
		{
			name: "the same source twice on a query counts once",
			rankings: []pool.Ranking{
				{Source: "a", Query: "q", Docs: []string{"d"}},
				{Source: "a", Query: "q", Docs: []string{"e", "d"}},
			},
			judged: judgedSet(),
			depth:  10,
			want: []pool.Pair{
				{Dataset: "x", Query: "q", Doc: "d", Priority: 1, Trials: 1, BestRank: 1},
				{Dataset: "x", Query: "q", Doc: "e", Priority: 1, Trials: 1, BestRank: 1},
			},
			stats: pool.Stats{Pairs: 2, Queries: 1, PerQueryMin: 2, PerQueryMedian: 2, PerQueryMax: 2, Sources: 1, K: 10,
				JudgedNow: 0, JudgedIfAll: 0.15},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := pool.Build("x", tc.rankings, tc.judged, tc.depth)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(p.Pairs, tc.want) {
				t.Errorf("pairs:\n got %+v\nwant %+v", p.Pairs, tc.want)
			}
			if p.Stats != tc.stats {
				t.Errorf("stats:\n got %+v\nwant %+v", p.Stats, tc.stats)
			}
		})
	}
}

func TestBuildDepthRange(t *testing.T) {
	for _, d := range []int{0, -1, pool.MaxDepth + 1} {
		if _, err := pool.Build("x", nil, judgedSet(), d); err == nil || !strings.Contains(err.Error(), "depth must be in 1..") {
			t.Errorf("depth %d: got %v, want a range error", d, err)
		}
	}
}

func TestWriteJSONL(t *testing.T) {
	var b bytes.Buffer
	err := pool.WriteJSONL(&b, []pool.Pair{{Dataset: "d", Query: "q1", Doc: "d7", Priority: 0.9, Trials: 3, BestRank: 1}})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"dataset":"d","query":"q1","doc":"d7","priority":0.9,"trials":3,"best_rank":1}` + "\n"
	if b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
}
