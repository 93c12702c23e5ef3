package main

import (
	"github.com/fusiontune/fusiontune/experiments"
	tunesettings "github.com/fusiontune/fusiontune/internal/settings"
	"github.com/fusiontune/fusiontune/tuner"
)

// newScorer builds the scorer of the settings for a golden set read on
// scale (its thresholds and top grade reach every measure).
func newScorer(s tunesettings.Score, scale experiments.Scale) (*tuner.MetricsScorer, error) {
	return tuner.NewScorer(s.Primary, s.Metrics, tuner.ScaleOptions(scale))
}
