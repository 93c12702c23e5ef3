package main

import (
	"os"
	"path/filepath"

	"github.com/fusiontune/fusiontune/tuner"
)

// openDataset opens the settings' dataset (see tuner.OpenDataset), the
// embedded engine's corpus standing in for a missing dataset.corpus, and
// records the shipped demo's files in the settings when it stood in.
func openDataset(s *settings) (*tuner.Dataset, error) {
	ds, err := tuner.OpenDataset(s.Dataset, engineCorpusPath(s), userCachePath(""))
	if err != nil {
		return nil, runError(err)
	}
	s.Dataset = ds.Config
	return ds, nil
}

// engineCorpusPath returns the corpus path of the embedded engine's
// settings, if any.
func engineCorpusPath(s *settings) string {
	if c, ok := s.Backend.Engine["corpus"].(map[string]any); ok {
		if p, ok := c["path"].(string); ok {
			return p
		}
	}
	return ""
}

// userCachePath is fusiontune's cache directory sub, not created.
func userCachePath(sub string) string {
	base, err := os.UserCacheDir()
	if err != nil {
		base = os.TempDir()
	}
	return filepath.Join(base, "fusiontune", sub)
}
