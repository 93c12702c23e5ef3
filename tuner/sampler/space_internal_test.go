package sampler

import (
	"reflect"
	"strings"
	"testing"

	"github.com/c-bata/goptuna"
	"github.com/fusiontune/fusiontune/experiments"
)

// TestNewDim: each parameter type maps to its goptuna distribution (a
// step picks the stepped one), and a parameter its type cannot take is an
// error naming it.
func TestNewDim(t *testing.T) {
	for _, tc := range []struct {
		name    string
		sp      experiments.SpaceParam
		want    any
		wantErr string
	}{
		{"int", experiments.SpaceParam{Param: "k", Type: "int", Low: 10, High: 100}, goptuna.IntUniformDistribution{Low: 10, High: 100}, ""},
		{"int with a step", experiments.SpaceParam{Param: "k", Type: "int", Low: 10, High: 100, Step: 10}, goptuna.StepIntUniformDistribution{Low: 10, High: 100, Step: 10}, ""},
		{"int, fractional step", experiments.SpaceParam{Param: "k", Type: "int", Low: 10, High: 100, Step: 2.5}, nil, "k: an int step must be an integer (got 2.5)"},
		{"int, fractional bound", experiments.SpaceParam{Param: "k", Type: "int", Low: 0.5, High: 100}, nil, "k: an int range needs integer bounds"},
		{"float", experiments.SpaceParam{Param: "w", Type: "float", Low: 0, High: 1}, goptuna.UniformDistribution{Low: 0, High: 1}, ""},
		{"float with a step", experiments.SpaceParam{Param: "w", Type: "float", Low: 0, High: 1, Step: 0.1}, goptuna.DiscreteUniformDistribution{Low: 0, High: 1, Q: 0.1}, ""},
		{"empty range", experiments.SpaceParam{Param: "w", Type: "float", Low: 1, High: 1}, nil, "w: low must be < high (got 1, 1)"},
		{"log_float", experiments.SpaceParam{Param: "t", Type: "log_float", Low: 0.01, High: 10}, goptuna.LogUniformDistribution{Low: 0.01, High: 10}, ""},
		{"log_float from 0", experiments.SpaceParam{Param: "t", Type: "log_float", Low: 0, High: 10}, nil, "t: log_float needs low > 0"},
		{"log_float with a step", experiments.SpaceParam{Param: "t", Type: "log_float", Low: 1, High: 10, Step: 1}, nil, "t: log_float takes no step"},
		{"categorical", experiments.SpaceParam{Param: "m", Type: "categorical", Choices: []any{"rrf", 2}}, goptuna.CategoricalDistribution{Choices: []string{"rrf", "2"}}, ""},
		{"categorical without choices", experiments.SpaceParam{Param: "m", Type: "categorical"}, nil, "m: categorical needs choices"},
		{"unknown type", experiments.SpaceParam{Param: "m", Type: "bool", Low: 0, High: 1}, nil, `m: unknown type "bool"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := newDim(tc.sp)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), "search space: "+tc.wantErr) {
					t.Fatalf("error = %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(d.distribution, tc.want) {
				t.Errorf("distribution = %#v, want %#v", d.distribution, tc.want)
			}
		})
	}
}
