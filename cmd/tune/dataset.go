package main

import (
	"github.com/fusiontune/fusiontune/tuner"
)

// openDataset opens the settings' dataset (Settings.OpenDataset); a
// failure is the user's input (exit 2) or a failed run (exit 1).
func openDataset(s *settings) (*tuner.Dataset, error) {
	ds, err := s.OpenDataset()
	return ds, runError(err)
}
