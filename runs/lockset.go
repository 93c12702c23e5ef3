package runs

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"
)

// LockFor takes the locks a writing command needs: the runs directory's
// (one tuner at a time records runs and promotions there) and, when
// prodConfig is not "", the backend config's (one tuner at a time
// rewrites, restarts or promotes into it, whatever its runs directory).
// args is the command line after "tune", recorded as the holder's. A lock
// held by a live process is an error naming it; a lock left by a dead one
// is taken over with a note on log. release drops them; it is never nil.
func (s *Store) LockFor(prodConfig string, args []string, log io.Writer) (release func(), err error) {
	var held []*Lock
	release = func() {
		for i := len(held) - 1; i >= 0; i-- {
			held[i].Release()
		}
		held = nil
	}
	take := func(l *Lock, err error) error {
		if err != nil {
			return err
		}
		held = append(held, l)
		noteStale(l, log)
		return nil
	}
	args = append([]string{"tune"}, args...)
	if err := take(s.Lock(args)); err != nil {
		return release, err
	}
	if prodConfig != "" {
		abs, err := filepath.Abs(prodConfig)
		if err != nil {
			release()
			return release, err
		}
		if err := take(LockConfig(abs, args)); err != nil {
			release()
			return release, err
		}
	}
	return release, nil
}

// LockConfigFile takes only the lock of a backend's config (a shared
// study, which records no run in a runs directory of its own, still
// rewrites and restarts an http service's config). args is the whole
// command line, recorded as the holder's. release is never nil.
func LockConfigFile(config string, args []string, log io.Writer) (release func(), err error) {
	release = func() {}
	abs, err := filepath.Abs(config)
	if err != nil {
		return release, err
	}
	l, err := LockConfig(abs, args)
	if err != nil {
		return release, err
	}
	noteStale(l, log)
	return func() { l.Release() }, nil
}

func noteStale(l *Lock, log io.Writer) {
	if l.Stale != nil {
		fmt.Fprintf(log, "tune: took over the stale lock %s of %s, which died without releasing it\n", l.Path(), l.Stale)
	}
}

// ConfigLockHeld reports whether a live process holds the production
// config's lock (LockConfig), probed with a shared flock that changes
// nothing.
func ConfigLockHeld(config string) bool {
	abs, err := filepath.Abs(config)
	if err != nil {
		return false
	}
	f, err := os.Open(ConfigLockPath(abs))
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
