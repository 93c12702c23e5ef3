package main

import (
	"context"
	"fmt"

	"github.com/fusiontune/fusiontune/tuner"
)

// mergeStoreLabels sets the dataset id of ds (dataset.id, else the golden
// set's file name without extension, "demo" for the shipped demo) and,
// with dataset.labels set, merges the label store's labels into its
// judgments (the password of a postgres:// URL joins the secrets every run
// file is scrubbed of).
func (a *app) mergeStoreLabels(s *settings, ds *tuner.Dataset) error {
	id := ds.DatasetID()
	ds.Config.ID = id
	if s.Dataset.Labels == "" {
		return nil
	}
	url := s.StoreURL("dataset.labels", s.Dataset.Labels)
	a.secrets.AddURLPassword(url)
	if err := ds.MergeLabels(context.Background(), url, id); err != nil {
		return runError(err)
	}
	p := ds.Labels.Provenance
	fmt.Fprintf(a.stderr, "dataset.labels: %d judgments of dataset %q: %d gold, %d human, %d llm, %d file, %d implicit\n",
		p.Total(), id, p.Gold, p.Human, p.LLM, p.File, p.Implicit)
	return nil
}
