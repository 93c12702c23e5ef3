package fusion_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/fusiontune/fusiontune/backend/fusion"
)

// sample is the fixture of the hand-computed tests.
//
//	bm25:  a#1 (a, 10)  b#1 (b, 8)  a#2 (a, 6)  c#1 (c, 4)
//	dense: c#1 (c, .9)  a#2 (a, .8) d#1 (d, .5)
//
// Collapsed to documents (first chunk wins):
//
//	bm25:  a (rank 1, 10)  b (2, 8)   c (3, 4)
//	dense: c (rank 1, .9)  a (2, .8)  d (3, .5)
func sample() map[string][]fusion.Candidate {
	return map[string][]fusion.Candidate{
		"bm25": {
			{ID: "a#1", DocID: "a", Score: 10, Rank: 1},
			{ID: "b#1", DocID: "b", Score: 8, Rank: 2},
			{ID: "a#2", DocID: "a", Score: 6, Rank: 3},
			{ID: "c#1", DocID: "c", Score: 4, Rank: 4},
		},
		"dense": {
			{ID: "c#1", DocID: "c", Score: 0.9, Rank: 1},
			{ID: "a#2", DocID: "a", Score: 0.8, Rank: 2},
			{ID: "d#1", DocID: "d", Score: 0.5, Rank: 3},
		},
	}
}

type want struct {
	id    string
	score float64
}

func TestFuseHandComputed(t *testing.T) {
	// z-score pieces (population stddev):
	//   bm25 10, 8, 4: mean 22/3; sd = sqrt(((8/3)^2 + (2/3)^2 + (10/3)^2) / 3) = sqrt(56/9) = 2.494
	//   dense .9, .8, .5: mean 2.2/3; sd = sqrt((.5^2 + .2^2 + .7^2) / 27) = sqrt(.78/27) = .170
	sdB, sdD := math.Sqrt(56.0/9), math.Sqrt(0.78/27)
	zB := func(s float64) float64 { return (s - 22.0/3) / sdB }
	zD := func(s float64) float64 { return (s - 2.2/3) / sdD }
	// l2 pieces: ||bm25|| = sqrt(100+64+16) = sqrt(180); ||dense|| = sqrt(.81+.64+.25) = sqrt(1.7)
	nB, nD := math.Sqrt(180), math.Sqrt(1.7)

	tests := []struct {
		name    string
		p       fusion.Params
		passage bool
		want    []want
	}{
		{
			// a = 1/61 + 1/62 = .032522; c = 1/63 + 1/61 = .032266; b = 1/62 = .016129; d = 1/63 = .015873
			name: "rrf defaults",
			p:    fusion.Params{},
			want: []want{{"a", 1.0/61 + 1.0/62}, {"c", 1.0/63 + 1.0/61}, {"b", 1.0 / 62}, {"d", 1.0 / 63}},
		},
		{
			// a = 2/61 + .5/62 = .040851; c = 2/63 + .5/61 = .039943; b = 2/62 = .032258; d = .5/63 = .007937
			name: "rrf weighted",
			p:    fusion.Params{Method: fusion.RRF, Weights: map[string]float64{"bm25": 2, "dense": 0.5}},
			want: []want{{"a", 2.0/61 + 0.5/62}, {"c", 2.0/63 + 0.5/61}, {"b", 2.0 / 62}, {"d", 0.5 / 63}},
		},
		{
			// k = 1: a = 1/2 + 1/3 = .8333; c = 1/4 + 1/2 = .75; b = 1/3; d = 1/4
			name: "rrf k=1",
			p:    fusion.Params{K: 1},
			want: []want{{"a", 0.5 + 1.0/3}, {"c", 0.25 + 0.5}, {"b", 1.0 / 3}, {"d", 0.25}},
		},
		{
			// min-max: bm25 a 1, b (8-4)/6 = .6667, c 0; dense c 1, a (.8-.5)/.4 = .75, d 0
			// a = 1 + .75 = 1.75; c = 0 + 1 = 1; b = .6667; d = 0
			name: "linear min_max",
			p:    fusion.Params{Method: fusion.Linear},
			want: []want{{"a", 1.75}, {"c", 1}, {"b", 4.0 / 6}, {"d", 0}},
		},
		{
			// a = .3*1 + .7*.75 = .825; c = .3*0 + .7*1 = .7; b = .3*.6667 = .2; d = 0
			name: "linear weighted",
			p:    fusion.Params{Method: fusion.Linear, Weights: map[string]float64{"bm25": 0.3, "dense": 0.7}},
			want: []want{{"a", 0.825}, {"c", 0.7}, {"b", 0.2}, {"d", 0}},
		},
		{
			// a = 1.069 + .392 = 1.461; b = .267; c = -1.336 + .981 = -.356; d = -1.373
			name: "linear z_score",
			p:    fusion.Params{Method: fusion.Linear, Normalization: fusion.ZScore},
			want: []want{{"a", zB(10) + zD(0.8)}, {"b", zB(8)}, {"c", zB(4) + zD(0.9)}, {"d", zD(0.5)}},
		},
		{
			// a = 10/13.416 + .8/1.304 = .745 + .614 = 1.359; c = .298 + .690 = .988; b = .596; d = .383
			name: "linear l2",
			p:    fusion.Params{Method: fusion.Linear, Normalization: fusion.L2},
			want: []want{{"a", 10/nB + 0.8/nD}, {"c", 4/nB + 0.9/nD}, {"b", 8 / nB}, {"d", 0.5 / nD}},
		},
		{
			// raw: a = 10 + .8; b = 8; c = 4 + .9; d = .5
			name: "linear none",
			p:    fusion.Params{Method: fusion.Linear, Normalization: fusion.None},
			want: []want{{"a", 10.8}, {"b", 8}, {"c", 4.9}, {"d", 0.5}},
		},
		{
			// weights other than 0 are ignored: same as linear min_max with weight 1
			name: "combsum ignores weights",
			p:    fusion.Params{Method: fusion.CombSUM, Weights: map[string]float64{"bm25": 5}},
			want: []want{{"a", 1.75}, {"c", 1}, {"b", 4.0 / 6}, {"d", 0}},
		},
		{
			// a = 1.75 * 2 = 3.5; c = 1 * 2 = 2; b = .6667 * 1; d = 0 * 1
			name: "combmnz",
			p:    fusion.Params{Method: fusion.CombMNZ},
			want: []want{{"a", 3.5}, {"c", 2}, {"b", 4.0 / 6}, {"d", 0}},
		},
		{
			// dense off: bm25 alone, a 1/61, b 1/62, c 1/63; d never appears
			name: "weight 0 switches a retriever off",
			p:    fusion.Params{Weights: map[string]float64{"dense": 0}},
			want: []want{{"a", 1.0 / 61}, {"b", 1.0 / 62}, {"c", 1.0 / 63}},
		},
		{
			// depth 2: bm25 a#1 b#1 -> a b; dense c#1 a#2 -> c a
			// a = 1/61 + 1/62; c = 1/61; b = 1/62
			name: "depth 2",
			p:    fusion.Params{Depth: 2},
			want: []want{{"a", 1.0/61 + 1.0/62}, {"c", 1.0 / 61}, {"b", 1.0 / 62}},
		},
		{
			// truncation comes before collapsing: bm25 a#1 b#1 a#2 -> a b (c#1 at 4 is cut);
			// dense c a d. a = 1/61 + 1/62; c = 1/61; b = 1/62; d = 1/63
			name: "depth 3 truncates before collapsing",
			p:    fusion.Params{Depth: 3},
			want: []want{{"a", 1.0/61 + 1.0/62}, {"c", 1.0 / 61}, {"b", 1.0 / 62}, {"d", 1.0 / 63}},
		},
		{
			// chunks keep their own ranks:
			// c#1 = 1/64 + 1/61 = .032018; a#2 = 1/63 + 1/62 = .032002; a#1 = 1/61; b#1 = 1/62; d#1 = 1/63
			name:    "rrf passage",
			p:       fusion.Params{},
			passage: true,
			want:    []want{{"c#1", 1.0/64 + 1.0/61}, {"a#2", 1.0/63 + 1.0/62}, {"a#1", 1.0 / 61}, {"b#1", 1.0 / 62}, {"d#1", 1.0 / 63}},
		},
		{
			// min-max over 4 bm25 chunks (10, 8, 6, 4; span 6) and 3 dense chunks:
			// a#1 = 1; a#2 = 2/6 + .75 = 1.0833; c#1 = 0 + 1 = 1; b#1 = 4/6; d#1 = 0
			// (c#1 and a#1 tie: document c before a, ids descending)
			name:    "linear passage",
			p:       fusion.Params{Method: fusion.Linear},
			passage: true,
			want:    []want{{"a#2", 2.0/6 + 0.75}, {"c#1", 1}, {"a#1", 1}, {"b#1", 4.0 / 6}, {"d#1", 0}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := fusion.Fuse(sample(), tt.p, tt.passage)
			checkResults(t, got, tt.want)
		})
	}
}

func checkResults(t *testing.T, got []fusion.Result, want []want) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d results %v, want %d %v", len(got), got, len(want), want)
	}
	for i, w := range want {
		if got[i].ID != w.id || math.Abs(got[i].Score-w.score) > 1e-12 {
			t.Errorf("result %d = %s %.15g, want %s %.15g", i, got[i].ID, got[i].Score, w.id, w.score)
		}
	}
}

func TestFuseDocIDs(t *testing.T) {
	lists := map[string][]fusion.Candidate{
		"bm25": {{ID: "x#2", DocID: "x", Score: 3}, {ID: "solo", Score: 2}},
	}
	tests := []struct {
		name    string
		passage bool
		want    []fusion.Result
	}{
		{"document", false, []fusion.Result{{ID: "x", DocID: "x", Score: 1.0 / 61}, {ID: "solo", DocID: "solo", Score: 1.0 / 62}}},
		{"passage", true, []fusion.Result{{ID: "x#2", DocID: "x", Score: 1.0 / 61}, {ID: "solo", DocID: "solo", Score: 1.0 / 62}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := fusion.Fuse(lists, fusion.Params{}, tt.passage)
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestFuseTiesBreakByID(t *testing.T) {
	// z and y each get 1/61 + 1/62 (float addition of two terms is
	// commutative), so the tie breaks by id descending, as trec_eval
	// orders tied scores: z before y.
	lists := map[string][]fusion.Candidate{
		"bm25":  {{ID: "y", Score: 2}, {ID: "z", Score: 1}},
		"dense": {{ID: "z", Score: 2}, {ID: "y", Score: 1}},
	}
	got := fusion.Fuse(lists, fusion.Params{}, false)
	checkResults(t, got, []want{{"z", 1.0/61 + 1.0/62}, {"y", 1.0/61 + 1.0/62}})
	if got[0].Score != got[1].Score {
		t.Errorf("scores differ: %v", got)
	}
}

func TestFuseRepeatedChunkKeepsFirst(t *testing.T) {
	// passage mode, "p" twice in one list: the second is dropped, q keeps rank 3.
	lists := map[string][]fusion.Candidate{"bm25": {{ID: "p", Score: 3}, {ID: "p", Score: 2}, {ID: "q", Score: 1}}}
	got := fusion.Fuse(lists, fusion.Params{}, true)
	checkResults(t, got, []want{{"p", 1.0 / 61}, {"q", 1.0 / 62}})
	// depth 2 cuts q (position 3), although only one entry was kept before it.
	got = fusion.Fuse(lists, fusion.Params{Depth: 2}, true)
	checkResults(t, got, []want{{"p", 1.0 / 61}})
}

func TestFuseEmpty(t *testing.T) {
	tests := []struct {
		name  string
		lists map[string][]fusion.Candidate
	}{
		{"nil map", nil},
		{"empty lists", map[string][]fusion.Candidate{"bm25": nil, "dense": {}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, m := range fusion.Methods {
				if got := fusion.Fuse(tt.lists, fusion.Params{Method: m}, false); len(got) != 0 {
					t.Errorf("%s: got %v, want nothing", m, got)
				}
			}
		})
	}
}

func TestFusePanicsOnUnknownMethod(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("no panic for an unknown method")
		}
	}()
	fusion.Fuse(sample(), fusion.Params{Method: "borda"}, false)
}

// TestFusePassageTiesByDocument: tied chunks break by their documents' ids
// first (descending), even where the chunk ids sort the other way ("a#0" >
// "a!#0" but document "a!" > "a"), so the documents of a passage ranking
// are in the order trec_eval gives a run file of them.
func TestFusePassageTiesByDocument(t *testing.T) {
	lists := map[string][]fusion.Candidate{
		"bm25":  {{ID: "a#0", DocID: "a", Score: 2}, {ID: "a!#0", DocID: "a!", Score: 1}},
		"dense": {{ID: "a!#0", DocID: "a!", Score: 2}, {ID: "a#0", DocID: "a", Score: 1}},
	}
	got := fusion.Fuse(lists, fusion.Params{}, true)
	checkResults(t, got, []want{{"a!#0", 1.0/61 + 1.0/62}, {"a#0", 1.0/61 + 1.0/62}})
}
