package experiments_test

import (
	"slices"
	"testing"

	"github.com/fusiontune/fusiontune/experiments"
)

// TestExpandWarnsIgnoredParams: Expand warns (tune check and the sweep
// print its warnings) about parameters the trials' fusion method ignores,
// once per parameter and method, judged by the fusion package's table.
func TestExpandWarnsIgnoredParams(t *testing.T) {
	tests := []struct {
		name string
		file string
		want []string
	}{
		{"normalization under rrf", `baseline: {params: {fusion.method: rrf}}
grid: {fusion.normalization: [min_max, z_score]}`,
			[]string{`x.yaml: fusion.normalization is ignored by fusion.method rrf (2 trials set it, first "normalization=min_max"): they rank as if it were unset`}},
		{"k under linear, weights under combsum", `baseline: {params: {fusion.k: 40}}
experiments:
  - {name: lin, params: {fusion.method: linear}}
  - {name: sum, params: {fusion.method: combsum, fusion.weights.bm25: 0.3, fusion.weights.dense: 0}}`,
			[]string{
				`x.yaml: fusion.k is ignored by fusion.method combsum (1 trials set it, first "sum"): they rank as if it were unset`,
				`x.yaml: fusion.k is ignored by fusion.method linear (1 trials set it, first "lin"): they rank as if it were unset`,
				`x.yaml: fusion.weights.bm25 is ignored by fusion.method combsum (1 trials set it, first "sum"): they rank as if it were unset`,
			}},
		{"settings the method reads", `baseline: {params: {fusion.method: linear, fusion.normalization: z_score, fusion.weights.bm25: 0.7}}
grid: {fusion.weights.dense: [0.2, 0.4]}
experiments: [{name: rrf, params: {fusion.method: rrf, fusion.normalization: none}}]`,
			[]string{`x.yaml: fusion.normalization is ignored by fusion.method rrf (1 trials set it, first "rrf"): they rank as if it were unset`}},
		{"no method set: the backend's default is not judged", `grid: {fusion.normalization: [min_max, l2]}`, nil},
		{"a space sampling what the fixed method ignores", `baseline: {params: {fusion.method: rrf}}
space: {fusion.normalization: {type: categorical, choices: [min_max, l2]}, fusion.k: {type: int, low: 1, high: 100}}
trials: 4`,
			[]string{`x.yaml: space samples fusion.normalization, which the baseline's fusion.method rrf ignores: its trials differ only by chance`}},
		{"a space sampling the method too", `baseline: {params: {fusion.method: rrf}}
space: {fusion.method: {type: categorical, choices: [rrf, linear]}, fusion.normalization: {type: categorical, choices: [min_max, l2]}}
trials: 4`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ef, err := experiments.ParseExperimentFile("x.yaml", []byte("name: x\n"+tt.file+"\n"))
			if err != nil {
				t.Fatal(err)
			}
			_, warnings, err := ef.Expand()
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(warnings, tt.want) {
				t.Errorf("warnings:\n%q\nwant\n%q", warnings, tt.want)
			}
		})
	}
}
