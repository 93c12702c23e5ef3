package runs

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/fusiontune/fusiontune/internal/atomicfile"
)

// ErrLocked is wrapped by the error Acquire returns when another live
// process holds the lock.
var ErrLocked = errors.New("locked by another tuner")

// LockFile is the lock of a runs directory, inside it.
const LockFile = ".lock"

// Holder identifies the process that holds (or last held) a lock. It is
// the content of the lock file.
type Holder struct {
	PID     int       `json:"pid"`
	Started time.Time `json:"started"`
	Host    string    `json:"host,omitempty"`
	Args    []string  `json:"args,omitempty"`
}

func (h Holder) String() string {
	s := fmt.Sprintf("pid %d, started %s", h.PID, h.Started.UTC().Format(time.RFC3339))
	if h.Host != "" {
		s += " on " + h.Host
	}
	if len(h.Args) > 0 {
		s += ": " + strings.Join(h.Args, " ")
	}
	return s
}

// LockedError is returned by Acquire when the lock is held. It names what
// is locked and who holds it.
type LockedError struct {
	What   string // "runs directory tuning_runs"
	Path   string // the lock file
	Holder Holder // zero when the holder has not written its name yet
}

func (e *LockedError) Error() string {
	who := "another process (it has not written its pid yet)"
	if e.Holder.PID != 0 {
		who = e.Holder.String()
	}
	return fmt.Sprintf("%s is in use by another tuner (%s); wait for it to finish or stop it (lock file %s)", e.What, who, e.Path)
}

// Unwrap makes errors.Is(err, ErrLocked) true.
func (e *LockedError) Unwrap() error { return ErrLocked }

// Lock is an exclusive advisory lock (flock(2)) on a file, held by this
// process until Release or exit. The kernel drops it when the process dies,
// even by SIGKILL, so a dead holder never blocks the next tuner: its name
// left in the file only tells the next one that it took over a stale lock.
type Lock struct {
	f    *os.File
	path string
	// Stale is the previous holder when it died without releasing the
	// lock (its record was still in the file); nil otherwise.
	Stale *Holder
}

// Acquire takes the lock at path without waiting. what describes the
// locked thing for the error message ("runs directory X"). When another
// process holds it, the error is a *LockedError naming that process.
func Acquire(path, what string, args []string) (*Lock, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("lock %s: %w", what, err)
	}
	// O_CLOEXEC (set by os) keeps the descriptor, and so the lock, out of
	// child processes such as a backend service.
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", what, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, &LockedError{What: what, Path: path, Holder: readHolder(path)}
		}
		return nil, fmt.Errorf("lock %s: %w", what, err)
	}
	l := &Lock{f: f, path: path}
	if prev, ok := decodeHolder(readAll(f)); ok {
		// We hold the lock, so the recorded holder does not: it died
		// without releasing it (a clean release empties the file).
		l.Stale = &prev
	}
	host, _ := os.Hostname()
	me := Holder{PID: os.Getpid(), Started: time.Now().UTC().Truncate(time.Second), Host: host, Args: args}
	data, _ := json.Marshal(me)
	if err := rewrite(f, append(data, '\n')); err != nil {
		f.Close()
		return nil, fmt.Errorf("lock %s: record holder: %w", what, err)
	}
	return l, nil
}

// Release empties the lock file and drops the lock. It is safe to call
// more than once and on a nil Lock.
func (l *Lock) Release() error {
	if l == nil || l.f == nil {
		return nil
	}
	err := l.f.Truncate(0)
	if cerr := l.f.Close(); err == nil { // closing drops the flock
		err = cerr
	}
	l.f = nil
	return err
}

// Path is the lock file.
func (l *Lock) Path() string { return l.path }

// readHolder reads the holder record of a lock held by someone else. The
// holder writes it right after taking the lock; give it a moment.
func readHolder(path string) Holder {
	for i := 0; i < 20; i++ {
		data, _ := os.ReadFile(path)
		if h, ok := decodeHolder(data); ok {
			return h
		}
		time.Sleep(25 * time.Millisecond)
	}
	return Holder{}
}

func decodeHolder(data []byte) (Holder, bool) {
	var h Holder
	if len(strings.TrimSpace(string(data))) == 0 || json.Unmarshal(data, &h) != nil || h.PID <= 0 {
		return Holder{}, false
	}
	return h, true
}

func readAll(f *os.File) []byte {
	st, err := f.Stat()
	if err != nil || st.Size() > 1<<16 {
		return nil
	}
	buf := make([]byte, st.Size())
	n, _ := f.ReadAt(buf, 0)
	return buf[:n]
}

func rewrite(f *os.File, data []byte) error {
	if err := f.Truncate(0); err != nil {
		return err
	}
	if _, err := f.WriteAt(data, 0); err != nil {
		return err
	}
	return f.Sync()
}

// Lock takes the runs directory's lock: one tuner at a time writes runs
// and promotions into a store.
func (s *Store) Lock(args []string) (*Lock, error) {
	return Acquire(filepath.Join(s.Dir, LockFile), "runs directory "+s.Dir, args)
}

// ConfigLockPath is the lock file guarding a production config: a hidden
// file beside the file config resolves to (a symbolic link to it, or to
// its directory, leads to the same lock, as a write through the link
// reaches the same file: see atomicfile.Target). The config itself is
// replaced by rename, a new inode each time, so neither it nor its inode
// can carry the lock.
func ConfigLockPath(config string) string {
	real := atomicfile.Target(config)
	if dir, err := filepath.EvalSymlinks(filepath.Dir(real)); err == nil {
		real = filepath.Join(dir, filepath.Base(real))
	}
	if abs, err := filepath.Abs(real); err == nil {
		real = abs
	}
	return filepath.Join(filepath.Dir(real), "."+filepath.Base(real)+".lock")
}

// LockConfig takes the lock of a backend's config file: one tuner at a
// time rewrites it for a trial, restarts its service, promotes into it or
// rolls it back, whatever runs directory each uses.
func LockConfig(config string, args []string) (*Lock, error) {
	return Acquire(ConfigLockPath(config), "production config "+config, args)
}
