package main

import (
	"fmt"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/experiments"
	"github.com/fusiontune/fusiontune/tuner/sampler"
)

// studyFor returns the sampler study of an experiment file with a space
// (nil without one), after checking the backend accepts the space's edges.
func studyFor(ef *experiments.ExperimentFile, f backend.Factory) (*sampler.Options, error) {
	if len(ef.Space) == 0 {
		return nil, nil
	}
	so := sampler.OptionsFor(ef)
	if _, err := sampler.New(so); err != nil {
		return nil, fmt.Errorf("%s: %w", ef.Path, err)
	}
	if err := checkTrials(f, so.Corners()); err != nil {
		return nil, err
	}
	return &so, nil
}
