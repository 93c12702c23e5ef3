package main

import (
	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner/promote"
	"github.com/fusiontune/fusiontune/tuner/replay"
)

// openStore opens the runs directory with redaction on.
func (a *app) openStore(dir string) (*runs.Store, error) {
	s, err := runs.Open(dir)
	if err != nil {
		return nil, err
	}
	s.Redact = a.secrets
	s.Derive = replay.NewDeriver()
	return s, nil
}

// warnUnfinished warns on stderr of an interrupted promotion into the
// settings' production config (promote.WarnUnfinished).
func (a *app) warnUnfinished(s *settings, store *runs.Store) {
	promote.WarnUnfinished(a.stderr, s.Backend.Config, store)
}
