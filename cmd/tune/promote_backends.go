package main

import (
	"context"
	"fmt"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/backend/embedded"
	"github.com/fusiontune/fusiontune/tuner"
	"github.com/fusiontune/fusiontune/tuner/promote"
)

// productionVerifier returns the promotion's verifier for the settings'
// backend kind (see the kinds' Verify: embedded and process start the
// service, check it and stop it again; http restarts the user's service,
// which stays up).
func (a *app) productionVerifier(s *settings) promote.VerifyFunc {
	return func(config, dir string, check func(context.Context, backend.Searcher) error) (func(context.Context) error, error) {
		switch s.Backend.Kind {
		case kindProcess, kindHTTP:
			f, err := a.newFactory(s, "")
			if err != nil {
				return nil, &tuner.InputError{Err: err}
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
}
