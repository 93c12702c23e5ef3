package sampler_test

import (
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/experiments"
	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner/sampler"
)

// TestSamplersRespectSpace asks every sampler for many trials over every
// parameter type, telling each a score, and checks every value's type and
// range.
func TestSamplersRespectSpace(t *testing.T) {
	space := []experiments.SpaceParam{
		{Param: "fusion.k", Type: "int", Low: 1, High: 4},
		{Param: "depth", Type: "int", Low: 10, High: 50, Step: 10},
		{Param: "fusion.weights.bm25", Type: "float", Low: 0.2, High: 0.8},
		{Param: "fusion.weights.dense", Type: "float", Low: 0, High: 1, Step: 0.25},
		{Param: "bm25.k1", Type: "log_float", Low: 0.01, High: 10},
		{Param: "fusion.method", Type: "categorical", Choices: []any{"rrf", "linear", "combsum"}},
		{Param: "chunk.size", Type: "categorical", Choices: []any{200.0, 300.0}},
	}
	for _, s := range []string{sampler.Random, sampler.TPE, sampler.CMAES} {
		t.Run(s, func(t *testing.T) {
			study, err := sampler.New(sampler.Options{Space: space, Sampler: s, Seed: 3, Trials: 60,
				Base: experiments.Params{"min_score": 0.0}})
			if err != nil {
				t.Fatal(err)
			}
			seen := map[string]map[string]bool{}
			for i := 0; i < 60; i++ {
				p, err := study.Ask()
				if err != nil {
					t.Fatal(err)
				}
				if p.Params["min_score"] != 0.0 {
					t.Fatalf("base parameter lost: %v", p.Params)
				}
				for _, sp := range space {
					v := p.Params[sp.Param]
					if seen[sp.Param] == nil {
						seen[sp.Param] = map[string]bool{}
					}
					seen[sp.Param][experiments.FormatValue(v)] = true
					if msg := checkValue(sp, v); msg != "" {
						t.Fatalf("trial %d: %s = %v: %s", i, sp.Param, v, msg)
					}
				}
				score := -math.Abs(p.Params["fusion.weights.bm25"].(float64)-0.5) - 0.01*p.Params["fusion.k"].(float64)
				if err := study.Tell(p, runs.TrialRecord{Status: runs.StatusOK, Primary: score}); err != nil {
					t.Fatal(err)
				}
			}
			// Small discrete ranges are covered, bounds included.
			for _, want := range []string{"1", "4"} {
				if !seen["fusion.k"][want] {
					t.Errorf("fusion.k never %s in 60 trials: %v", want, seen["fusion.k"])
				}
			}
			if len(seen["fusion.method"]) != 3 || len(seen["chunk.size"]) != 2 {
				t.Errorf("categorical choices not all drawn: %v %v", seen["fusion.method"], seen["chunk.size"])
			}
		})
	}
}

func checkValue(sp experiments.SpaceParam, v any) string {
	if sp.Type == "categorical" {
		for _, c := range sp.Choices {
			if reflect.DeepEqual(c, v) {
				return ""
			}
		}
		return "not one of the choices"
	}
	f, ok := v.(float64)
	if !ok {
		return "not a float64"
	}
	if f < sp.Low || f > sp.High {
		return "out of range"
	}
	if sp.Type == "int" && f != math.Trunc(f) {
		return "not an integer"
	}
	if sp.Step > 0 {
		if n := (f - sp.Low) / sp.Step; math.Abs(n-math.Round(n)) > 1e-9 {
			return "not on the step grid"
		}
	}
	return ""
}

func TestStudyOptionsErrors(t *testing.T) {
	good := []experiments.SpaceParam{{Param: "fusion.k", Type: "int", Low: 10, High: 100}}
	for _, tc := range []struct {
		name string
		o    sampler.Options
		want string
	}{
		{"no space", sampler.Options{Trials: 3}, "search space: empty"},
		{"no budget", sampler.Options{Space: good}, "trials must be > 0"},
		{"sampler", sampler.Options{Space: good, Trials: 3, Sampler: "grid"}, `unknown sampler "grid"`},
		{"fraction", sampler.Options{Space: good, Trials: 3, Pruning: experiments.Pruning{Enabled: true, Fraction: 1, ReductionFactor: 3}}, "pruning.fraction"},
		{"eta", sampler.Options{Space: good, Trials: 3, Pruning: experiments.Pruning{Enabled: true, Fraction: 0.5, ReductionFactor: 1}}, "pruning.reduction_factor"},
		{"int bounds", sampler.Options{Trials: 3, Space: []experiments.SpaceParam{{Param: "depth", Type: "int", Low: 1.5, High: 9}}}, "integer bounds"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := sampler.New(tc.o)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want it to contain %q", err, tc.want)
			}
		})
	}
}
