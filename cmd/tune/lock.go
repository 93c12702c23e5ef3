package main

import (
	"fmt"
	"path/filepath"

	"github.com/fusiontune/fusiontune/runs"
)

// lockRun takes the locks a writing command needs: the runs directory's
// (one tuner at a time records runs and promotions there) and, when
// prodConfig is not "", the backend config's (one tuner at a time
// rewrites, restarts or promotes into it, whatever its runs directory). A lock held by a live process is an error naming it
// (exit 1); a lock left by a dead one is taken over with a note on stderr.
// release drops them; it is never nil.
func (a *app) lockRun(store *runs.Store, prodConfig string, args []string) (release func(), err error) {
	var held []*runs.Lock
	release = func() {
		for i := len(held) - 1; i >= 0; i-- {
			held[i].Release()
		}
		held = nil
	}
	take := func(l *runs.Lock, err error) error {
		if err != nil {
			return failedError(err)
		}
		held = append(held, l)
		if l.Stale != nil {
			fmt.Fprintf(a.stderr, "tune: took over the stale lock %s of %s, which died without releasing it\n", l.Path(), l.Stale)
		}
		return nil
	}
	args = append([]string{"tune"}, args...)
	if err := take(store.Lock(args)); err != nil {
		return release, err
	}
	if prodConfig != "" {
		abs, err := filepath.Abs(prodConfig)
		if err != nil {
			release()
			return release, err
		}
		if err := take(runs.LockConfig(abs, args)); err != nil {
			release()
			return release, err
		}
	}
	return release, nil
}

// lockConfig takes only the lock of a backend's config (a shared study,
// which records no run in a runs directory of its own, still rewrites and
// restarts an http service's config). args is the command line, recorded
// as the holder's.
func (a *app) lockConfig(config string, args []string) (release func(), err error) {
	release = func() {}
	abs, err := filepath.Abs(config)
	if err != nil {
		return release, err
	}
	l, err := runs.LockConfig(abs, args)
	if err != nil {
		return release, failedError(err)
	}
	if l.Stale != nil {
		fmt.Fprintf(a.stderr, "tune: took over the stale lock %s of %s, which died without releasing it\n", l.Path(), l.Stale)
	}
	return func() { l.Release() }, nil
}
