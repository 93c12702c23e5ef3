package main

import (
	"context"
	"errors"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/backend/kinds"
	tunesettings "github.com/fusiontune/fusiontune/internal/settings"
	"github.com/fusiontune/fusiontune/tuner"
	"github.com/fusiontune/fusiontune/tuner/promote"
)

// newFactory builds the backend kind the settings name
// (Settings.Factory); corpus is the embedded engine's default corpus.
// Errors are the user's (exit 2), placed where the settings set the value.
func (a *app) newFactory(s *settings, corpus string) (backend.Factory, error) {
	return s.Factory(corpus, a.secrets)
}

// backendOptions are the settings' backend options on this process
// (settings.NewHost).
func (a *app) backendOptions(s *settings, corpus string) (kinds.Options, error) {
	h, err := tunesettings.NewHost(a.secrets)
	if err != nil {
		return kinds.Options{}, err
	}
	return s.Backend.Options(corpus, h)
}

// productionVerifier returns the promotion's verifier for the settings'
// backend kind (kinds.Verify).
func (a *app) productionVerifier(s *settings) promote.VerifyFunc {
	return func(config, dir string, check func(context.Context, backend.Searcher) error) (func(context.Context) error, error) {
		o, err := a.backendOptions(s, "")
		if err != nil {
			return nil, err
		}
		stop, err := kinds.Verify(o, config, dir, a.stderr, check)
		var ie *kinds.InputError
		if errors.As(err, &ie) {
			if err = ie.Err; s.Src != nil {
				err = s.Src.Place(err)
			}
			return nil, &tuner.InputError{Err: err}
		}
		return stop, err
	}
}

// productionConfig is how a promotion installs a trial's recorded config
// (Settings.ProductionConfig).
func productionConfig(s *settings) func([]byte) ([]byte, error) {
	return s.ProductionConfig(userCachePath("engine"))
}
