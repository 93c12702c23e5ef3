package main

import (
	"github.com/fusiontune/fusiontune/tuner"
)

// mergeStoreLabels sets the dataset id of ds (dataset.id, else the golden
// set's file name without extension, "demo" for the shipped demo) and,
// with dataset.labels set, merges the label store's labels into its
// judgments (the password of a postgres:// URL joins the secrets every run
// file is scrubbed of).
func (a *app) mergeStoreLabels(s *settings, ds *tuner.Dataset) error {
	return runError(s.MergeStoreLabels(ds, a.secrets, a.stderr))
}
