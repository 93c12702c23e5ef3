package main

import (
	"context"
	"fmt"
	"net/url"

	"github.com/fusiontune/fusiontune/experiments/labels"
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
	a.addURLSecret(url)
	if err := ds.MergeLabels(context.Background(), url, id); err != nil {
		return runError(err)
	}
	p := ds.Labels.Provenance
	fmt.Fprintf(a.stderr, "dataset.labels: %d judgments of dataset %q: %d gold, %d human, %d llm, %d file, %d implicit\n",
		p.Total(), id, p.Gold, p.Human, p.LLM, p.File, p.Implicit)
	return nil
}

// addURLSecret adds the password of a URL, if any, to the secrets.
func (a *app) addURLSecret(raw string) {
	if u, err := url.Parse(raw); err == nil && u.User != nil {
		if pw, ok := u.User.Password(); ok && pw != "" {
			a.secrets.Add(pw)
		}
	}
}

// storeLabels returns the labels of dataset (query -> doc -> grade, any
// source) in the store JudgeStoreURL names; nil when it is a SQLite file
// that does not exist yet.
func (a *app) storeLabels(ctx context.Context, s *settings, dataset string) (map[string]map[string]int, error) {
	url := s.JudgeStoreURL()
	a.addURLSecret(url)
	if labels.Absent(url) {
		return nil, nil
	}
	st, err := labels.Open(ctx, url)
	if err != nil {
		return nil, inputError(fmt.Errorf("labels: %w", err))
	}
	defer st.Close()
	ls, err := st.Latest(ctx, dataset)
	if err != nil {
		return nil, fmt.Errorf("dataset.labels: %w", err)
	}
	return labels.ToQrels(ls), nil
}
