package tuner_test

import (
	"reflect"
	"testing"

	"github.com/fusiontune/fusiontune/tuner/replay"

	"github.com/fusiontune/fusiontune/tuner/scoring"

	"github.com/fusiontune/fusiontune/backend/fusion"
	"github.com/fusiontune/fusiontune/experiments"
	"github.com/fusiontune/fusiontune/tuner"
)

// TestReplayListsEqualsReplay: ReplayLists, what tune ui's microscope
// re-fuses with, gives the per-query record a replayed trial writes for
// the same lists and settings (top hits, grades, labels, scores,
// routing), under several fusions, floors and a min_score.
func TestReplayListsEqualsReplay(t *testing.T) {
	sc, err := scoring.NewScorer("default", nil, scoring.ScaleOptions(experiments.DefaultScale()))
	if err != nil {
		t.Fatal(err)
	}
	lists := map[string][]fusion.Candidate{
		"bm25":  {{ID: "a", DocID: "a", Score: 9, Rank: 1}, {ID: "b", DocID: "b", Score: 7, Rank: 2}, {ID: "c", DocID: "c", Score: 2, Rank: 3}, {ID: "e", DocID: "e", Score: 1, Rank: 4}},
		"dense": {{ID: "c", DocID: "c", Score: 0.9, Rank: 1}, {ID: "d", DocID: "d", Score: 0.8, Rank: 2}, {ID: "a", DocID: "a", Score: 0.1, Rank: 3}},
	}
	q := scoring.Query{ID: "q1", Category: "direct", Judgments: map[string]int{"c": 3, "d": 1, "x": 2}}
	half := 0.5
	weights := map[string]float64{"bm25": 1, "dense": 1}
	for _, tc := range []struct {
		name string
		s    fusion.Settings
	}{
		{"rrf-60", fusion.Settings{Fusion: fusion.Params{Method: fusion.RRF, K: 60, Weights: weights, Normalization: fusion.MinMax, Depth: 100}}},
		{"rrf-1", fusion.Settings{Fusion: fusion.Params{Method: fusion.RRF, K: 1, Weights: map[string]float64{"bm25": 0.2, "dense": 1}, Normalization: fusion.MinMax, Depth: 100}}},
		{"linear-floor", fusion.Settings{Fusion: fusion.Params{Method: fusion.Linear, Weights: weights, Normalization: fusion.ZScore, Depth: 100}, Floors: map[string]float64{"bm25": 3}}},
		{"combmnz-min-score", fusion.Settings{Fusion: fusion.Params{Method: fusion.CombMNZ, Normalization: fusion.MinMax, Depth: 2}, MinScore: &half}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			core := tuner.NewReplayCore(sc, 10)
			want := core.Records([]*tuner.ReplayQuery{core.Prepare(q, fusion.Prepare(lists))}, tc.s)[0]
			want.Unjudged = false
			got := replay.ReplayLists(q, lists, tc.s, sc, 10)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("ReplayLists:\n%+v\nreplay records:\n%+v", got, want)
			}
			if len(got.Top) == 0 || got.Labels == "" {
				t.Errorf("empty record %+v", got)
			}
		})
	}
}
