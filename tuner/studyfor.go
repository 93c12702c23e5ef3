package tuner

import (
	"errors"
	"fmt"
	"strings"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/experiments"
	"github.com/fusiontune/fusiontune/tuner/sampler"
)

// StudyFor returns the sampler study of an experiment file with a space
// (nil without one), after checking the backend accepts the space's edges.
func StudyFor(ef *experiments.ExperimentFile, f backend.Factory) (*sampler.Options, error) {
	if len(ef.Space) == 0 {
		return nil, nil
	}
	so := sampler.OptionsFor(ef)
	if _, err := sampler.New(so); err != nil {
		return nil, fmt.Errorf("%s: %w", ef.Path, err)
	}
	if err := CheckTrials(f, so.Corners()); err != nil {
		return nil, err
	}
	return &so, nil
}

// CheckTrials checks every trial's config with the backend, listing every
// problem at once, each where its trial is defined (file:line:col and its
// block), so the parameter to fix can be found.
func CheckTrials(f backend.Factory, trials []experiments.TrialSpec) error {
	var problems []string
	for _, t := range trials {
		if err := f.Check(t.Params); err != nil {
			where := ""
			if t.Pos != "" {
				where = t.Pos + ": "
			}
			if t.Origin != "" {
				where += t.Origin + ".params: "
			}
			problems = append(problems, fmt.Sprintf("%strial %q: %v", where, t.Name, err))
		}
	}
	if len(problems) > 0 {
		return errors.New(strings.Join(problems, "\n"))
	}
	return nil
}
