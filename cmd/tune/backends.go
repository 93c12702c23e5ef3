package main

import "github.com/fusiontune/fusiontune/backend"

// newFactory builds the backend kind the settings name
// (Settings.Factory); corpus is the embedded engine's default corpus.
// Errors are the user's (exit 2), placed where the settings set the value.
func (a *app) newFactory(s *settings, corpus string) (backend.Factory, error) {
	return s.Factory(corpus, a.secrets)
}
