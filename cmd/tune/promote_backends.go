package main

import (
	"context"
	"fmt"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/backend/embedded"
)

// productionVerifier returns a promotion's Verify for the settings' backend
// kind: bring the service up on the production config now on disk (config,
// absolute), wait until it is healthy and run check against it (see the
// kinds' Verify: embedded and process start the service, check it and stop
// it again; http restarts the user's service, which stays up).
//
// dir is a scratch directory the caller removes.
func (a *app) productionVerifier(s *settings, config, dir string, check func(context.Context, backend.Searcher) error) (func(context.Context) error, error) {
	switch s.Backend.Kind {
	case kindProcess, kindHTTP:
		f, err := a.newFactory(s, "")
		if err != nil {
			return nil, inputError(err)
		}
		v, ok := f.(backend.Verifier)
		if !ok {
			return nil, fmt.Errorf("backend.kind %s: promotion is not supported", s.Backend.Kind)
		}
		return v.Verify(config, dir, a.stderr, check)
	}
	o, err := a.embeddedOptions(s)
	if err != nil {
		return nil, err
	}
	o.Redact = nil // the promotion's own output is already redacted
	return embedded.Verify(o, config, dir, a.stderr, check)
}
