package tuner_test

import (
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/experiments"
	"github.com/fusiontune/fusiontune/tuner"
)

func TestPlanGroupsByIndexTimeParams(t *testing.T) {
	spec := func(name string, p experiments.Params) experiments.TrialSpec {
		return experiments.TrialSpec{Name: name, Params: p}
	}
	trials := []experiments.TrialSpec{
		spec("a", experiments.Params{"chunk.size": 300.0, "fusion.k": 60.0}),
		spec("b", experiments.Params{"chunk.size": 200.0, "fusion.k": 60.0}),
		spec("c", experiments.Params{"chunk.size": 300.0, "fusion.k": 40.0}),
		spec("d", experiments.Params{"chunk.size": 200.0, "dense.model": "lsa-64"}),
		spec("e", experiments.Params{"chunk.size": 200.0, "fusion.method": "linear"}),
	}
	groups := tuner.Plan(trials)
	var got []string
	for _, g := range groups {
		var names []string
		for _, t := range g.Trials {
			names = append(names, t.Name)
		}
		got = append(got, g.Key+":"+strings.Join(names, ","))
	}
	want := []string{
		"chunk.size=300:a,c",
		"chunk.size=200:b,e",
		"chunk.size=200,dense.model=lsa-64:d",
	}
	if strings.Join(got, " | ") != strings.Join(want, " | ") {
		t.Errorf("groups\n got %v\nwant %v", got, want)
	}
	if n := len(tuner.Flatten(groups)); n != len(trials) {
		t.Errorf("Flatten lost trials: %d", n)
	}
}
