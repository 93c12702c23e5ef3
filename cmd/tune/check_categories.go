package main

import (
	"os"

	"github.com/fusiontune/fusiontune/experiments"
	"github.com/fusiontune/fusiontune/tuner"
)

// checkSettingsCategories is tune check's side of checkCategories: when the
// settings gate or guard a category, it opens the dataset the settings name
// (the split a sweep would evaluate, the shipped demo extracted into a
// throwaway directory, so that nothing is written) and refuses a category
// no evaluated query has, as a sweep would before its first trial.
func checkSettingsCategories(s *settings) error {
	if len(s.gates) == 0 && len(s.Promotion.Guarded) == 0 {
		return nil
	}
	tmp, err := os.MkdirTemp("", "fusiontune-check-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	c := *s
	open := func() (*tuner.Dataset, error) {
		return tuner.OpenDataset(c.Dataset, engineCorpusPath(&c), tmp)
	}
	ds, err := open()
	if err != nil {
		return err
	}
	if !c.splitGiven && judgedQueries(ds.Queries) >= DefaultSplitMinQueries {
		c.Dataset.Split = experiments.SplitDev // the split a sweep picks itself
		if ds, err = open(); err != nil {
			return err
		}
	}
	return c.checkCategories(ds.Queries)
}

// judgedQueries counts the queries with at least one judgment.
func judgedQueries(qs []tuner.Query) int {
	n := 0
	for _, q := range qs {
		if len(q.Judgments) > 0 {
			n++
		}
	}
	return n
}
