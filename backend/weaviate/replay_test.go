package weaviate_test

import (
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/backend/corpus"
	"github.com/fusiontune/fusiontune/backend/fusion"
	"github.com/fusiontune/fusiontune/backend/weaviate"
)

// TestTrialOf checks the per-request fusion overrides the tuner verifies
// replayed trials with: a trial's own Params give the trial back, method
// and weights set fusionType and alpha, and what Weaviate cannot change
// per request is refused.
func TestTrialOf(t *testing.T) {
	base := weaviate.Trial{Alpha: 0.75, FusionType: fusion.WeaviateRelativeScoreFusion, MaxResults: 100, K1: 1.2, B: 0.75}
	ranked := weaviate.Trial{Alpha: 0.3, FusionType: fusion.WeaviateRankedFusion, MaxResults: 100, K1: 1.2, B: 0.75}
	rp := ranked.Params()
	tests := []struct {
		name     string
		override *fusion.Params
		want     weaviate.Trial
		wantErr  string
	}{
		{"none", nil, base, ""},
		{"a trial's own params", &rp, ranked, ""},
		{"weights only", &fusion.Params{Weights: map[string]float64{"bm25": 3, "dense": 1}},
			weaviate.Trial{Alpha: 0.25, FusionType: fusion.WeaviateRelativeScoreFusion, MaxResults: 100, K1: 1.2, B: 0.75}, ""},
		{"another depth", &fusion.Params{Depth: 50}, weaviate.Trial{}, "cannot change the depth"},
		{"k 60", &fusion.Params{Method: fusion.RRF, K: 60}, weaviate.Trial{}, "fixes it at 59"},
		{"z_score", &fusion.Params{Method: fusion.Linear, Normalization: fusion.ZScore}, weaviate.Trial{}, "min_max only"},
		{"combsum", &fusion.Params{Method: fusion.CombSUM}, weaviate.Trial{}, "no Weaviate fusionType"},
		{"third leg", &fusion.Params{Weights: map[string]float64{"splade": 1}}, weaviate.Trial{}, `weight of "splade"`},
		{"no weight", &fusion.Params{Weights: map[string]float64{"bm25": 0, "dense": 0}}, weaviate.Trial{}, "both 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := weaviate.TrialOf(base, tt.override)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("got %+v, %v; want %+v", got, err, tt.want)
			}
		})
	}
}

// TestFactoryFusion checks the settings the tuner replays a trial under:
// Weaviate's formula, the trial's alpha exactly, fusionType as the
// method, the depth; untranslatable params are refused.
func TestFactoryFusion(t *testing.T) {
	f, err := weaviate.New(weaviate.Options{URL: "http://127.0.0.1:1", Model: "hash-16", Corpus: corpus.Config{Path: "corpus.jsonl"}})
	if err != nil {
		t.Fatal(err)
	}
	s, err := f.Fusion(map[string]any{"alpha": 0.3, "fusionType": "rankedFusion", "depth": 40})
	if err != nil {
		t.Fatal(err)
	}
	if s.Formula != fusion.FormulaWeaviate || s.Fusion.Method != fusion.RRF || s.Fusion.Depth != 40 || fusion.WeaviateAlpha(s.Fusion) != 0.3 {
		t.Errorf("settings %+v", s)
	}
	s, err = f.Fusion(map[string]any{"fusion.method": "linear", "fusion.weights.bm25": 0})
	if err != nil || s.Fusion.Method != fusion.Linear || fusion.WeaviateAlpha(s.Fusion) != 1 || s.Fusion.Depth != weaviate.DefaultMaxResults {
		t.Errorf("settings %+v, %v", s, err)
	}
	if _, err := f.Fusion(map[string]any{"min_score": 0.1}); err == nil {
		t.Error("min_score: no error")
	}
}
