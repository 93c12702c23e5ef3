package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"

	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner/promote"
)

// warnUnfinished tells the user, on stderr, when a promotion into the
// settings' production config was interrupted (its intent journaled, no
// outcome): which config the file holds now, where the previous one is,
// and that tune rollback (or the next tune apply) completes the rollback.
func (a *app) warnUnfinished(s *settings, store *runs.Store) {
	if s.Backend.Config == "" || configLockHeld(s.Backend.Config) {
		return // none, or a live tune is promoting right now
	}
	state, err := promote.UnfinishedState(s.Backend.Config, store)
	switch {
	case err != nil:
		fmt.Fprintf(a.stderr, "warning: %v\n", err)
	case state != "":
		fmt.Fprintf(a.stderr, "warning: %s; 'tune rollback' restores the previous config and brings the service back up\n", state)
	}
}

// configLockHeld reports whether a live process holds the production
// config's lock (runs.LockConfig), probed with a shared flock that
// changes nothing.
func configLockHeld(config string) bool {
	abs, err := filepath.Abs(config)
	if err != nil {
		return false
	}
	f, err := os.Open(runs.ConfigLockPath(abs))
	if err != nil {
		return false
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_SH|syscall.LOCK_NB); err != nil {
		return errors.Is(err, syscall.EWOULDBLOCK)
	}
	_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	return false
}
