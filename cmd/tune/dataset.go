package main

import (
	tunesettings "github.com/fusiontune/fusiontune/internal/settings"
	"github.com/fusiontune/fusiontune/tuner"
)

// openDataset opens the settings' dataset (Settings.OpenDataset); a
// failure is the user's input (exit 2) or a failed run (exit 1).
func openDataset(s *settings) (*tuner.Dataset, error) {
	ds, err := s.OpenDataset()
	return ds, runError(err)
}

// userCachePath is fusiontune's cache directory sub, not created.
func userCachePath(sub string) string { return tunesettings.CachePath(sub) }
