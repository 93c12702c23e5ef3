package main

import (
	"os"

	"github.com/fusiontune/fusiontune/tuner"
)

// checkSettingsCategories is tune check's side of checkCategories: when the
// settings gate or guard a category, it opens the dataset the settings name
// (the split a sweep would evaluate, the shipped demo extracted into a
// throwaway directory, so that nothing is written) and refuses a category
// no evaluated query has, as a sweep would before its first trial.
func checkSettingsCategories(s *settings) error {
	if len(s.Gates) == 0 && len(s.Promotion.Guarded) == 0 {
		return nil
	}
	tmp, err := os.MkdirTemp("", "fusiontune-check-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	ds, _, err := tuner.OpenSweepDataset(s.Dataset, s.SplitGiven, engineCorpusPath(s), tmp)
	if err != nil {
		return err
	}
	return s.checkCategories(ds.Queries)
}
