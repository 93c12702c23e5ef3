package fusion_test

import (
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/backend/fusion"
)

func TestWithDefaults(t *testing.T) {
	tests := []struct {
		name string
		in   fusion.Params
		want fusion.Params
	}{
		{"zero", fusion.Params{}, fusion.Params{Method: fusion.RRF, K: 60, Normalization: fusion.MinMax, Depth: 100}},
		{"set fields kept", fusion.Params{Method: fusion.Linear, K: 10, Normalization: fusion.L2, Depth: 5},
			fusion.Params{Method: fusion.Linear, K: 10, Normalization: fusion.L2, Depth: 5}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.in.WithDefaults(); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestWeight(t *testing.T) {
	p := fusion.Params{Weights: map[string]float64{"bm25": 0.25, "dense": 0}}
	tests := []struct {
		name, retriever string
		want            float64
	}{
		{"set", "bm25", 0.25},
		{"zero is kept", "dense", 0},
		{"missing is 1", "splade", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := p.Weight(tt.retriever); got != tt.want {
				t.Errorf("Weight(%q) = %v, want %v", tt.retriever, got, tt.want)
			}
		})
	}
}

func TestOverride(t *testing.T) {
	base := fusion.Params{Method: fusion.RRF, K: 60, Weights: map[string]float64{"bm25": 1, "dense": 2}, Depth: 50}
	tests := []struct {
		name string
		o    *fusion.Params
		want fusion.Params
	}{
		{"nil", nil, base},
		{"empty", &fusion.Params{}, base},
		{"fields", &fusion.Params{Method: fusion.Linear, Normalization: fusion.ZScore, K: 5, Depth: 10},
			fusion.Params{Method: fusion.Linear, K: 5, Normalization: fusion.ZScore, Depth: 10, Weights: map[string]float64{"bm25": 1, "dense": 2}}},
		{"weights merge", &fusion.Params{Weights: map[string]float64{"dense": 0, "splade": 3}},
			fusion.Params{Method: fusion.RRF, K: 60, Depth: 50, Weights: map[string]float64{"bm25": 1, "dense": 0, "splade": 3}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := base.Override(tt.o)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
			got.Weights["bm25"] = 99
			if base.Weights["bm25"] != 1 {
				t.Error("Override shares its weights map with the base")
			}
		})
	}
	if got := (fusion.Params{}).Override(&fusion.Params{Weights: map[string]float64{"dense": 2}}); got.Weights["dense"] != 2 {
		t.Errorf("override weights onto none: got %v", got.Weights)
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name   string
		p      fusion.Params
		fields []string // fields named by the problems, in order; nil means valid
	}{
		{"zero is valid", fusion.Params{}, nil},
		{"defaults are valid", fusion.Params{}.WithDefaults(), nil},
		{"every method", fusion.Params{Method: fusion.CombMNZ, Normalization: fusion.None, K: 0.5, Depth: 1,
			Weights: map[string]float64{"bm25": 0, "dense": 3}}, nil},
		{"unknown method", fusion.Params{Method: "borda"}, []string{"method"}},
		{"negative k", fusion.Params{K: -1}, []string{"k"}},
		{"nan k", fusion.Params{K: math.NaN()}, []string{"k"}},
		{"k at the limit", fusion.Params{K: fusion.MaxK, Weights: map[string]float64{"bm25": fusion.MaxWeight}}, nil},
		{"k that makes every score tie", fusion.Params{K: 1e308}, []string{"k"}},
		{"weight that overflows", fusion.Params{Weights: map[string]float64{"bm25": 1e308, "dense": 1}}, []string{"weights.bm25"}},
		{"unknown normalization", fusion.Params{Normalization: "softmax"}, []string{"normalization"}},
		{"negative depth", fusion.Params{Depth: -3}, []string{"depth"}},
		{"bad weights", fusion.Params{Weights: map[string]float64{"dense": -1, "bm25": math.Inf(1), "ok": 1}},
			[]string{"weights.bm25", "weights.dense"}},
		{"everything at once", fusion.Params{Method: "x", K: -2, Normalization: "y", Depth: -1, Weights: map[string]float64{"bm25": -1}},
			[]string{"method", "k", "normalization", "depth", "weights.bm25"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.p.Validate()
			if tt.fields == nil {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			var ve *fusion.ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("got %v, want a *ValidationError", err)
			}
			var got []string
			for _, p := range ve.Problems {
				got = append(got, p.Field)
				if !strings.Contains(err.Error(), p.Field+": ") {
					t.Errorf("message %q does not name %q", err, p.Field)
				}
			}
			if !reflect.DeepEqual(got, tt.fields) {
				t.Errorf("problems on %v, want %v (%v)", got, tt.fields, err)
			}
			var fe *fusion.FieldError
			if !errors.As(err, &fe) || fe.Field != tt.fields[0] {
				t.Errorf("errors.As finds %v, want the %q problem", fe, tt.fields[0])
			}
		})
	}
	err := fusion.Params{Method: "borda"}.Validate()
	if !strings.Contains(err.Error(), `"borda"`) || !strings.Contains(err.Error(), "rrf, linear, combsum, combmnz") {
		t.Errorf("message %q should quote the input and list the valid methods", err)
	}
}

func TestNormalize(t *testing.T) {
	tests := []struct {
		name   string
		n      fusion.Normalization
		scores []float64
		want   []float64
	}{
		// (s - 2) / (6 - 2)
		{"min_max", fusion.MinMax, []float64{6, 4, 2}, []float64{1, 0.5, 0}},
		{"min_max constant", fusion.MinMax, []float64{3, 3}, []float64{1, 1}},
		{"min_max single", fusion.MinMax, []float64{-7}, []float64{1}},
		// mean 4, population sd sqrt((4 + 0 + 4) / 3) = sqrt(8/3)
		{"z_score", fusion.ZScore, []float64{6, 4, 2}, []float64{2 / math.Sqrt(8.0/3), 0, -2 / math.Sqrt(8.0/3)}},
		{"z_score constant", fusion.ZScore, []float64{5, 5, 5}, []float64{0, 0, 0}},
		// ||(3, 4)|| = 5
		{"l2", fusion.L2, []float64{3, 4}, []float64{0.6, 0.8}},
		{"l2 zero", fusion.L2, []float64{0, 0}, []float64{0, 0}},
		{"none", fusion.None, []float64{3, -1}, []float64{3, -1}},
		{"empty", fusion.MinMax, nil, []float64{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := fusion.Normalize(nil, tt.scores, tt.n)
			if len(got) != len(tt.want) {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
			for i := range got {
				if math.Abs(got[i]-tt.want[i]) > 1e-12 {
					t.Errorf("got %v, want %v", got, tt.want)
					break
				}
			}
		})
	}
}

// TestMethodReads pins which settings each method reads against Fuse
// itself: changing a setting a method ignores leaves its ranking and
// scores unchanged, changing one it reads changes them.
func TestMethodReads(t *testing.T) {
	lists := sample()
	changed := map[string]func(fusion.Params) fusion.Params{
		fusion.SettingK:             func(p fusion.Params) fusion.Params { p.K = 5; return p },
		fusion.SettingWeights:       func(p fusion.Params) fusion.Params { p.Weights = map[string]float64{"bm25": 3}; return p },
		fusion.SettingNormalization: func(p fusion.Params) fusion.Params { p.Normalization = fusion.ZScore; return p },
	}
	for _, m := range []fusion.Method{fusion.RRF, fusion.Linear, fusion.CombSUM, fusion.CombMNZ} {
		for setting, change := range changed {
			t.Run(string(m)+"/"+setting, func(t *testing.T) {
				base := fusion.Params{Method: m}
				a, b := fusion.Fuse(lists, base, false), fusion.Fuse(lists, change(base), false)
				if same := reflect.DeepEqual(a, b); same == m.Reads(setting) {
					t.Errorf("Reads(%q) = %v, but changing it changes the fusion: %v", setting, m.Reads(setting), !same)
				}
			})
		}
	}
	if fusion.Method("best").Reads(fusion.SettingK) || fusion.RRF.Reads("depth") {
		t.Error("an unknown method or setting reads something")
	}
}
