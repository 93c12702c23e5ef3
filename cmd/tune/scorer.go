package main

import (
	"github.com/fusiontune/fusiontune/metrics"
	"github.com/fusiontune/fusiontune/tuner"
)

func newScorer(s scoreSettings) (*tuner.MetricsScorer, error) {
	return tuner.NewScorer(s.Primary, s.Metrics, metrics.DefaultOptions())
}
