package experiments

import (
	"slices"
	"testing"
)

// TestDedupTrials: the first of trials with the same params is kept and
// each later one warned about, but for a grid's point at the baseline,
// which is the baseline; a name used twice is a problem naming the first
// use.
func TestDedupTrials(t *testing.T) {
	k := func(v int) Params { return Params{"fusion.k": v} }
	for _, tc := range []struct {
		name         string
		trials       []TrialSpec
		wantKept     []string
		wantWarnings []string
		wantProblems []string
	}{
		{"distinct", []TrialSpec{{Name: "a", Params: k(10)}, {Name: "b", Params: k(20)}}, []string{"a", "b"}, nil, nil},
		{"same params", []TrialSpec{{Name: "a", Params: k(10)}, {Name: "b", Params: k(20)}, {Name: "c", Params: k(10)}},
			[]string{"a", "b"}, []string{`x.yaml: trial "c" has the same parameters as "a": skipped`}, nil},
		{"a grid point at the baseline", []TrialSpec{{Name: "base", Params: k(60), Baseline: true, Origin: "baseline"}, {Name: "k=20", Params: k(20), Origin: "grid"}, {Name: "k=60", Params: k(60), Origin: "grid"}},
			[]string{"base", "k=20"}, nil, nil},
		{"a named trial at the baseline", []TrialSpec{{Name: "base", Params: k(60), Baseline: true, Origin: "baseline"}, {Name: "again", Params: k(60), Origin: "experiments[0]"}},
			[]string{"base"}, []string{`x.yaml: trial "again" has the same parameters as "base": skipped`}, nil},
		{"same name", []TrialSpec{{Name: "a", Params: k(10), Origin: "baseline"}, {Name: "a", Params: k(20), Origin: "experiments[0]"}},
			[]string{"a"}, nil, []string{`experiments[0].name: trial name "a" already used by baseline`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			kept, warnings, ps := dedupTrials("x.yaml", slices.Clone(tc.trials))
			var names, problems []string
			for _, k := range kept {
				names = append(names, k.Name)
			}
			for _, p := range ps {
				problems = append(problems, p.Field+": "+p.Msg)
			}
			if !slices.Equal(names, tc.wantKept) || !slices.Equal(warnings, tc.wantWarnings) || !slices.Equal(problems, tc.wantProblems) {
				t.Errorf("kept %q, warnings %q, problems %q;\nwant %q, %q, %q", names, warnings, problems, tc.wantKept, tc.wantWarnings, tc.wantProblems)
			}
		})
	}
}
