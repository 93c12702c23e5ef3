package tuner_test

import (
	"fmt"

	"github.com/fusiontune/fusiontune/experiments"
	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner/sampler"
)

// A study driven by ask and tell, here on a made-up objective whose best
// RRF k is 40: Ask proposes parameters, Tell gives their score. Pass
// StudyOptions.Storage (any goptuna.Storage) to share the study between
// processes.
func ExampleStudy() {
	study, err := sampler.New(sampler.Options{
		Space:   []experiments.SpaceParam{{Param: "fusion.k", Type: "int", Low: 1, High: 100}},
		Sampler: sampler.TPE,
		Seed:    1,
		Trials:  30,
		Base:    experiments.Params{"fusion.method": "rrf"},
	})
	if err != nil {
		panic(err)
	}
	best := experiments.Params{}
	bestScore := -1e9
	for i := 0; i < 30; i++ {
		p, err := study.Ask()
		if err != nil {
			panic(err)
		}
		k := p.Params["fusion.k"].(float64)
		score := -(k - 40) * (k - 40)
		if score > bestScore {
			best, bestScore = p.Params, score
		}
		if err := study.Tell(p, runs.TrialRecord{Status: runs.StatusOK, Primary: score}); err != nil {
			panic(err)
		}
	}
	fmt.Println(best.String())
	// Output: fusion.k=40,fusion.method=rrf
}
