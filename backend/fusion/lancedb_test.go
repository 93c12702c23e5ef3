package fusion_test

import (
	"testing"

	"github.com/fusiontune/fusiontune/backend/fusion"
)

func cands(ids ...string) []fusion.Candidate {
	out := make([]fusion.Candidate, len(ids))
	for i, id := range ids {
		out[i] = fusion.Candidate{ID: id, Score: float64(len(ids) - i)}
	}
	return out
}

// TestLanceDBRRF checks LanceDBRRF against hand-computed scores: zero-based
// positions (the best row of a leg gets 1/k), float32 sums, the cut at
// limit and the order of ties (the vector leg's rows, then the full-text
// leg's new rows, for up to 20 rows).
func TestLanceDBRRF(t *testing.T) {
	tests := []struct {
		name        string
		vector, fts []fusion.Candidate
		k           float32
		limit       int
		want        []string
		scores      []float32
	}{
		{
			name:   "k 1",
			vector: cands("foo", "bar", "baz", "bean", "dog"), fts: cands("bar", "bean", "dog"), k: 1,
			want:   []string{"bar", "foo", "bean", "dog", "baz"},
			scores: []float32{1.0/2 + 1.0/1, 1, 1.0/4 + 1.0/2, 1.0/5 + 1.0/3, 1.0 / 3},
		},
		{
			name:   "ties keep the vector leg first",
			vector: cands("a", "b"), fts: cands("c", "d"), k: 60,
			want:   []string{"a", "c", "b", "d"},
			scores: []float32{1.0 / 60, 1.0 / 60, 1.0 / 61, 1.0 / 61},
		},
		{
			name:   "limit cuts legs and answer",
			vector: cands("a", "b", "x"), fts: cands("x", "b", "a"), k: 60, limit: 2,
			want:   []string{"b", "a"},
			scores: []float32{1.0/61 + 1.0/61, 1.0 / 60},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := fusion.LanceDBRRF(tt.vector, tt.fts, tt.k, tt.limit)
			if len(got) != len(tt.want) {
				t.Fatalf("got %+v, want %v", got, tt.want)
			}
			for i, r := range got {
				if r.ID != tt.want[i] || float32(r.Score) != tt.scores[i] {
					t.Errorf("rank %d: got %s %v, want %s %v", i, r.ID, float32(r.Score), tt.want[i], tt.scores[i])
				}
			}
		})
	}
}

// TestLanceDBSettings checks that a Fuser under FormulaLanceDB ranks
// prepared lists as LanceDBRRF does, chunks collapsed to their documents.
func TestLanceDBSettings(t *testing.T) {
	lists := map[string][]fusion.Candidate{
		"dense": {{ID: "1", DocID: "d1"}, {ID: "2", DocID: "d2"}, {ID: "3", DocID: "d1"}},
		"bm25":  {{ID: "3", DocID: "d1"}, {ID: "4", DocID: "d3"}},
	}
	s := fusion.Settings{Fusion: fusion.Params{Method: fusion.RRF, K: 60, Depth: 3}, Formula: fusion.FormulaLanceDB}
	var f fusion.Fuser
	pl := fusion.Prepare(lists)
	ranked := f.HitsInto(nil, pl, s, -1)
	docs := pl.DocIDs(false)
	var got []string
	for _, r := range ranked {
		got = append(got, docs[r.Unit])
	}
	// Rows: 3 = 1/60 + 1/62, 1 = 1/60, 2 = 1/61, 4 = 1/61 (the vector
	// leg's tie first); the limit (3) keeps rows 3, 1, 2: d1 takes row 3's
	// place, row 1 (d1 again) is dropped and d3 is below the limit.
	want := []string{"d1", "d2"}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("got %v, want %v", got, want)
		}
	}
	if err := fusion.LanceDBExpresses(fusion.Settings{Fusion: fusion.Params{Method: fusion.Linear}}); err == nil {
		t.Errorf("linear: no error")
	}
	if err := fusion.LanceDBExpresses(fusion.Settings{Fusion: fusion.Params{Weights: map[string]float64{"bm25": 0.5}}}); err == nil {
		t.Errorf("weight 0.5: no error")
	}
}
