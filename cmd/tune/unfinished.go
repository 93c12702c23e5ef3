package main

import (
	"fmt"

	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner/promote"
)

// warnUnfinished tells the user, on stderr, when a promotion into the
// settings' production config was interrupted (its intent journaled, no
// outcome): which config the file holds now, where the previous one is,
// and that tune rollback (or the next tune apply) completes the rollback.
func (a *app) warnUnfinished(s *settings, store *runs.Store) {
	if s.Backend.Config == "" {
		return
	}
	state, err := promote.UnfinishedState(s.Backend.Config, store)
	switch {
	case err != nil:
		fmt.Fprintf(a.stderr, "warning: %v\n", err)
	case state != "":
		fmt.Fprintf(a.stderr, "warning: %s; 'tune rollback' restores the previous config and brings the service back up\n", state)
	}
}
