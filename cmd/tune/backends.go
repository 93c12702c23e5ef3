package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/backend/kinds"
	tunesettings "github.com/fusiontune/fusiontune/internal/settings"
	"github.com/fusiontune/fusiontune/tuner"
	"github.com/fusiontune/fusiontune/tuner/promote"
)

// newFactory builds the backend kind the settings name (backend/kinds);
// corpus is the embedded engine's default corpus. Errors are the user's
// (exit 2), placed where the settings set the value.
func (a *app) newFactory(s *settings, corpus string) (backend.Factory, error) {
	o, err := a.backendOptions(s, corpus)
	var f backend.Factory
	if err == nil {
		f, err = kinds.New(o)
	}
	if err != nil && s.Src != nil {
		err = s.Src.Place(err)
	}
	return f, err
}

// backendOptions are the settings' backend options on this process: the
// tune executable, the engine cache, the redactor.
func (a *app) backendOptions(s *settings, corpus string) (kinds.Options, error) {
	exe, err := os.Executable()
	if err != nil {
		return kinds.Options{}, fmt.Errorf("embedded backend: find the tune executable: %w", err)
	}
	return s.Backend.Options(corpus, tunesettings.Host{
		Exe: exe, CacheDir: userCachePath("engine"), Redact: a.secrets.Writer, Secret: a.secrets.Add, Header: a.secrets.AddHeader,
	})
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
