package fusion_test

import (
	"encoding/json"
	"math"
	"reflect"
	"testing"

	"github.com/fusiontune/fusiontune/backend/fusion"
)

func ptr(f float64) *float64 { return &f }

func TestSettingsBelow(t *testing.T) {
	tests := []struct {
		name     string
		minScore *float64
		score    float64
		want     bool
	}{
		{"no threshold", nil, -1e300, false},
		{"above", ptr(0.5), 0.75, false},
		{"at the threshold is kept", ptr(0.5), 0.5, false},
		{"below", ptr(0.5), 0.25, true},
		{"negative threshold", ptr(-1), -1.5, true},
		{"NaN is never below", ptr(0.5), math.NaN(), false},
		{"minus infinity", ptr(0), math.Inf(-1), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := fusion.Settings{MinScore: tt.minScore}
			if got := s.Below(tt.score); got != tt.want {
				t.Errorf("Below(%v) with min_score %v = %v, want %v", tt.score, tt.minScore, got, tt.want)
			}
		})
	}
}

func TestSettingsCut(t *testing.T) {
	nan := math.NaN()
	ranking := func(scores ...float64) []fusion.Ranked {
		out := make([]fusion.Ranked, len(scores))
		for i, s := range scores {
			out[i] = fusion.Ranked{Score: s, Unit: int32(i)}
		}
		return out
	}
	tests := []struct {
		name     string
		minScore *float64
		ranked   []fusion.Ranked
		want     int // length of the kept prefix
	}{
		{"no threshold keeps all", nil, ranking(3, 2, 1), 3},
		{"cut at the first below", ptr(1.5), ranking(3, 2, 1), 2},
		{"equal scores are kept", ptr(2), ranking(3, 2, 2, 1), 3},
		{"nothing passes", ptr(5), ranking(3, 2, 1), 0},
		{"empty ranking", ptr(0), nil, 0},
		{"NaN after passing scores is kept", ptr(1), ranking(3, 2, nan), 3},
		{"NaN after a cut is dropped", ptr(2.5), ranking(3, 2, nan), 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := fusion.Settings{MinScore: tt.minScore}
			got := s.Cut(tt.ranked)
			if len(got) != tt.want {
				t.Fatalf("Cut kept %d, want %d", len(got), tt.want)
			}
			for i := range got {
				if got[i].Unit != tt.ranked[i].Unit {
					t.Errorf("Cut[%d] = %+v, want %+v (a prefix)", i, got[i], tt.ranked[i])
				}
			}
		})
	}
}

func TestSettingsFloor(t *testing.T) {
	list := []fusion.Candidate{{ID: "a", Score: 3}, {ID: "b", Score: 2}, {ID: "c", Score: math.NaN()}, {ID: "d", Score: 1}}
	tests := []struct {
		name   string
		floors map[string]float64
		want   int
	}{
		{"no floor", nil, 4},
		{"other retriever's floor", map[string]float64{"dense": 10}, 4},
		{"at a score: kept", map[string]float64{"bm25": 2}, 3},
		{"NaN is never below", map[string]float64{"bm25": 1.5}, 3},
		{"first below cuts", map[string]float64{"bm25": 2.5}, 1},
		{"all below", map[string]float64{"bm25": 4}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := (fusion.Settings{Floors: tt.floors}).Floor("bm25", list); got != tt.want {
				t.Errorf("Floor = %d, want %d", got, tt.want)
			}
		})
	}
}

func TestRouting(t *testing.T) {
	for _, tt := range []struct {
		hits int
		want string
	}{{0, fusion.RoutingNoResults}, {1, fusion.RoutingSearch}, {10, fusion.RoutingSearch}} {
		if got := fusion.Routing(tt.hits); got != tt.want {
			t.Errorf("Routing(%d) = %q, want %q", tt.hits, got, tt.want)
		}
	}
}

// TestHitsIntoHandComputed checks the post-fusion rule on the sample lists
// fused by linear min_max (see TestFuseHandComputed):
//
//	documents: a 1.75, c 1, b 2/3, d 0
//	passages:  a#2 1/3 + .75 = 1.0833, a#1 1, c#1 0 + 1 = 1, b#1 2/3, d#1 0
func TestHitsIntoHandComputed(t *testing.T) {
	linear := fusion.Params{Method: fusion.Linear}
	tests := []struct {
		name    string
		s       fusion.Settings
		n       int
		want    []want
		routing string
	}{
		{
			name:    "no threshold, all",
			s:       fusion.Settings{Fusion: linear},
			n:       -1,
			want:    []want{{"a", 1.75}, {"c", 1}, {"b", 4.0 / 6}, {"d", 0}},
			routing: fusion.RoutingSearch,
		},
		{
			name:    "first n",
			s:       fusion.Settings{Fusion: linear},
			n:       2,
			want:    []want{{"a", 1.75}, {"c", 1}},
			routing: fusion.RoutingSearch,
		},
		{
			name:    "min_score cuts, a score at the threshold stays",
			s:       fusion.Settings{Fusion: linear, MinScore: ptr(1)},
			n:       10,
			want:    []want{{"a", 1.75}, {"c", 1}},
			routing: fusion.RoutingSearch,
		},
		{
			name:    "n before min_score",
			s:       fusion.Settings{Fusion: linear, MinScore: ptr(0.5)},
			n:       1,
			want:    []want{{"a", 1.75}},
			routing: fusion.RoutingSearch,
		},
		{
			name:    "nothing passes: no_results",
			s:       fusion.Settings{Fusion: linear, MinScore: ptr(2)},
			n:       10,
			want:    []want{},
			routing: fusion.RoutingNoResults,
		},
		{
			name:    "passages, ties by document id descending",
			s:       fusion.Settings{Fusion: linear, MinScore: ptr(1), Passage: true},
			n:       10,
			want:    []want{{"a#2", 1.0/3 + 0.75}, {"c#1", 1}, {"a#1", 1}},
			routing: fusion.RoutingSearch,
		},
		{
			// bm25 keeps a 10, b 8 (min_max: a 1, b 0); dense as before.
			name:    "bm25 floor drops c from bm25 before normalizing, a score at the floor stays",
			s:       fusion.Settings{Fusion: linear, Floors: map[string]float64{"bm25": 8}},
			n:       -1,
			want:    []want{{"a", 1.75}, {"c", 1}, {"d", 0}, {"b", 0}},
			routing: fusion.RoutingSearch,
		},
		{
			// bm25 a 1, b 2, c 3; dense keeps only c: c = 1/63 + 1/61.
			name:    "dense floor under rrf: ranks count the kept candidates",
			s:       fusion.Settings{Fusion: fusion.Params{Method: fusion.RRF}, Floors: map[string]float64{"dense": 0.85}},
			n:       -1,
			want:    []want{{"c", 1.0/63 + 1.0/61}, {"a", 1.0 / 61}, {"b", 1.0 / 62}},
			routing: fusion.RoutingSearch,
		},
		{
			// bm25 passages a#1 10, b#1 8, cut at a#2 6: a#1 1, b#1 0.
			name:    "passages: the floor cuts the chunk list",
			s:       fusion.Settings{Fusion: linear, Floors: map[string]float64{"bm25": 7}, Passage: true},
			n:       -1,
			want:    []want{{"c#1", 1}, {"a#1", 1}, {"a#2", 0.75}, {"d#1", 0}, {"b#1", 0}},
			routing: fusion.RoutingSearch,
		},
		{
			name:    "every candidate below its floor: no_results",
			s:       fusion.Settings{Fusion: linear, Floors: map[string]float64{"bm25": 11, "dense": 1}},
			n:       10,
			want:    []want{},
			routing: fusion.RoutingNoResults,
		},
		{
			name:    "floors and min_score",
			s:       fusion.Settings{Fusion: linear, Floors: map[string]float64{"bm25": 8}, MinScore: ptr(0.5)},
			n:       10,
			want:    []want{{"a", 1.75}, {"c", 1}},
			routing: fusion.RoutingSearch,
		},
	}
	pl := fusion.Prepare(sample())
	var f fusion.Fuser
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hits := f.HitsInto(nil, pl, tt.s, tt.n)
			ids := pl.IDs(tt.s.Passage)
			got := make([]want, len(hits))
			for i, h := range hits {
				got[i] = want{ids[h.Unit], h.Score}
			}
			if len(got) != len(tt.want) {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
			for i := range got {
				if got[i].id != tt.want[i].id || math.Abs(got[i].score-tt.want[i].score) > 1e-12 {
					t.Errorf("hit %d = %v, want %v", i, got[i], tt.want[i])
				}
			}
			if r := fusion.Routing(len(hits)); r != tt.routing {
				t.Errorf("routing %q, want %q", r, tt.routing)
			}
		})
	}
}

// TestSettingsJSON pins the encoding replayed trial records hold: the
// bytes below were written by a replayed sweep of the demo shortlist.
func TestSettingsJSON(t *testing.T) {
	tests := []struct {
		name string
		s    fusion.Settings
		json string
	}{
		{
			name: "recorded",
			s: fusion.Settings{Fusion: fusion.Params{Method: fusion.RRF, K: 60, Weights: map[string]float64{"bm25": 0.5, "dense": 0.5},
				Normalization: fusion.MinMax, Depth: 100}},
			json: `{"Fusion":{"method":"rrf","k":60,"weights":{"bm25":0.5,"dense":0.5},"normalization":"min_max","depth":100},"MinScore":null,"Passage":false}`,
		},
		{
			name: "threshold and passages",
			s:    fusion.Settings{Fusion: fusion.Params{Method: fusion.Linear, Normalization: fusion.ZScore}, MinScore: ptr(0.25), Passage: true},
			json: `{"Fusion":{"method":"linear","normalization":"z_score"},"MinScore":0.25,"Passage":true}`,
		},
		{
			name: "floors",
			s:    fusion.Settings{Fusion: fusion.Params{Method: fusion.RRF}, Floors: map[string]float64{"bm25": 2.5, "dense": 0.1}},
			json: `{"Fusion":{"method":"rrf"},"Floors":{"bm25":2.5,"dense":0.1},"MinScore":null,"Passage":false}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data, err := json.Marshal(tt.s)
			if err != nil {
				t.Fatal(err)
			}
			if string(data) != tt.json {
				t.Errorf("marshal:\n got %s\nwant %s", data, tt.json)
			}
			var back fusion.Settings
			if err := json.Unmarshal([]byte(tt.json), &back); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(back, tt.s) {
				t.Errorf("unmarshal: got %+v, want %+v", back, tt.s)
			}
		})
	}
}
