package weaviate_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/backend/weaviate"
)

func TestTranslate(t *testing.T) {
	def := weaviate.Trial{Alpha: 0.75, FusionType: "relativeScoreFusion", MaxResults: 100, K1: 1.2, B: 0.75}
	with := func(f func(*weaviate.Trial)) weaviate.Trial { x := def; f(&x); return x }
	tests := []struct {
		name    string
		params  map[string]any
		want    weaviate.Trial
		wantErr []string // substrings of the error, every one
	}{
		{"defaults", nil, def, nil},
		{"engine names", map[string]any{"alpha": 0.3, "fusionType": "rankedFusion"},
			with(func(x *weaviate.Trial) { x.Alpha, x.FusionType = 0.3, "rankedFusion" }), nil},
		{"common names", map[string]any{"fusion.method": "rrf", "fusion.k": 59.0, "fusion.weights.bm25": 3.0, "fusion.weights.dense": 1.0},
			with(func(x *weaviate.Trial) { x.Alpha, x.FusionType = 0.25, "rankedFusion" }), nil},
		{"linear min_max", map[string]any{"fusion.method": "linear", "fusion.normalization": "min_max", "fusion.weights.bm25": 0.0},
			with(func(x *weaviate.Trial) { x.Alpha, x.FusionType = 1, "relativeScoreFusion" }), nil},
		{"depth and bm25", map[string]any{"depth": 40, "bm25.k1": 0.9, "bm25.b": 0.4, "dense.model": "lsa-256"},
			with(func(x *weaviate.Trial) { x.MaxResults, x.K1, x.B, x.Model = 40, 0.9, 0.4, "lsa-256" }), nil},
		{"bm25 alone", map[string]any{"retrievers": []any{"bm25"}}, with(func(x *weaviate.Trial) { x.Alpha = 0 }), nil},
		{"fusion.k", map[string]any{"fusion.k": 60.0}, weaviate.Trial{}, []string{"fusion.k: Weaviate fixes the RRF constant", "fusion.k 59"}},
		{"z_score", map[string]any{"fusion.method": "linear", "fusion.normalization": "z_score"}, weaviate.Trial{}, []string{"fusion.normalization: Weaviate normalizes by min-max only"}},
		{"combmnz", map[string]any{"fusion.method": "combmnz"}, weaviate.Trial{}, []string{"fusion.method: Weaviate fuses by rankedFusion"}},
		{"both names", map[string]any{"alpha": 0.5, "fusion.weights.dense": 1.0, "fusionType": "rankedFusion", "fusion.method": "rrf"}, weaviate.Trial{},
			[]string{"give alpha or fusion.weights", "give fusionType or fusion.method"}},
		{"third retriever", map[string]any{"fusion.weights.splade": 1.0}, weaviate.Trial{}, []string{"fusion.weights.splade: Weaviate's hybrid query has two legs"}},
		{"out of range", map[string]any{"alpha": 1.5, "depth": 0, "bm25.b": 2.0, "fusionType": "rrf"}, weaviate.Trial{},
			[]string{"alpha: want a number from 0 to 1 (got 1.5)", "depth: want an integer from 1 to 10000 (got 0)", "bm25.b: want a number from 0 to 1 (got 2)", "fusionType: want rankedFusion or relativeScoreFusion (got rrf)"}},
		{"chunks and floors", map[string]any{"chunk.size": 200, "min_score": 0.1, "custom.x": 1}, weaviate.Trial{},
			[]string{"chunk.size: the weaviate kind loads whole documents", "min_score: not a parameter the weaviate kind can set", "custom.x: not a parameter"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := weaviate.Translate(tt.params)
			if len(tt.wantErr) > 0 {
				if err == nil {
					t.Fatalf("got %+v, want an error", got)
				}
				for _, w := range tt.wantErr {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("error %q lacks %q", err, w)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Fatalf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestScore32(t *testing.T) {
	tests := []struct {
		raw     string
		want    float32
		wantErr bool
	}{
		{`"0.016397849"`, 0.016397849, false},
		{`0.25`, 0.25, false},
		{`"1e-3"`, 0.001, false},
		{`"abc"`, 0, true},
		{`null`, 0, true},
	}
	for _, tt := range tests {
		got, err := weaviate.Score32(json.RawMessage(tt.raw))
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("Score32(%s) = %v, %v; want %v (error %v)", tt.raw, got, err, tt.want, tt.wantErr)
		}
	}
}

func TestUUIDStable(t *testing.T) {
	a, b := weaviate.UUID("4983"), weaviate.UUID("4983")
	if a != b || a == weaviate.UUID("4984") || len(a) != 36 || a[14] != '5' {
		t.Fatalf("UUID: %s %s %s", a, b, weaviate.UUID("4984"))
	}
}

// TestTranslateNames: Translate takes exactly the names Accepted declares
// (at some value), refuses every other name of the parameter table as not
// the kind's, and lists Params in that refusal, word for word.
func TestTranslateNames(t *testing.T) {
	const refusal = "not a parameter the weaviate kind can set"
	accepted := map[string]bool{}
	for _, n := range weaviate.Accepted() {
		accepted[n] = true
	}
	names := append(backend.ParamNames(), "fusion.weights.bm25", "fusion.weights.dense", "custom.x")
	for _, n := range names {
		if n == backend.WeightPattern || n == backend.CustomPattern {
			continue
		}
		_, err := weaviate.Translate(map[string]any{n: nil})
		if refused := err != nil && strings.Contains(err.Error(), refusal); refused == accepted[n] {
			t.Errorf("%s: accepted %v, but Translate says %v", n, accepted[n], err)
		}
	}
	for n := range accepted {
		if _, ok := backend.LookupParam(n); !ok {
			t.Errorf("%s: accepted, but not in the parameter table", n)
		}
	}
	_, err := weaviate.Translate(map[string]any{"min_score": 0.1})
	want := "min_score: " + refusal + " (it sets alpha, fusionType, fusion.method, fusion.weights.bm25, fusion.weights.dense, fusion.normalization min_max, fusion.k 59, depth, bm25.k1, bm25.b, dense.model, retrievers)"
	if err == nil || err.Error() != want {
		t.Errorf("got %v\nwant %s", err, want)
	}
}
