package atomicfile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Write replaces path with data (file mode perm), atomically and durably:
// the file and the directory entry are fsynced, so a crash leaves either
// the old file or the new one.
//
// Every write here goes through a symbolic link at path (its target is
// replaced and the link kept, as editors do), and first removes the
// temporaries an earlier, killed writer of path left beside its target
// (Stale).
func Write(path string, data []byte, perm os.FileMode) error {
	return write(path, data, perm, true)
}

// Replace replaces path with data atomically but without fsync: for
// scratch files whose content is recorded durably elsewhere (a trial's
// rendered config, kept in its trial record), where waiting for the disk
// would only slow the sweep down.
func Replace(path string, data []byte, perm os.FileMode) error {
	return write(path, data, perm, false)
}

// Renew writes data to path as Replace does, for a scratch file nothing
// reads while it is written (a trial's rendered config, which the service
// reads when it starts next): the old file is removed before the new one
// is renamed into place, because renaming over an existing file makes
// ext4 write the new file's data out at once (auto_da_alloc), half a
// millisecond to several per write that a scratch file does not need.
// Between the removal and the rename no file is at path: a reader sees the
// old file, none, or the whole new one, never a part of one.
func Renew(path string, data []byte, perm os.FileMode) error {
	return writeFile(path, data, perm, false, true)
}

func write(path string, data []byte, perm os.FileMode, durable bool) error {
	return writeFile(path, data, perm, durable, false)
}

func writeFile(path string, data []byte, perm os.FileMode, durable, removeFirst bool) error {
	path = Target(path)
	if st, err := os.Stat(path); err == nil && !st.Mode().IsRegular() {
		return writeSpecial(path, data, st.Mode())
	}
	for _, stale := range Stale(path) {
		os.Remove(stale)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), tempPrefix(path)+strconv.Itoa(os.Getpid())+"-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	fail := func(err error) error {
		tmp.Close()
		os.Remove(tmp.Name())
		return fmt.Errorf("write %s: %w", path, err)
	}
	if _, err := tmp.Write(data); err != nil {
		return fail(err)
	}
	if err := tmp.Chmod(perm); err != nil {
		return fail(err)
	}
	if durable {
		if err := tmp.Sync(); err != nil {
			return fail(err)
		}
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("write %s: %w", path, err)
	}
	if removeFirst {
		if err := os.Remove(path); err != nil && !os.IsNotExist(err) {
			os.Remove(tmp.Name())
			return fmt.Errorf("write %s: %w", path, err)
		}
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("write %s: %w", path, err)
	}
	if durable {
		if d, err := os.Open(filepath.Dir(path)); err == nil {
			d.Sync() // make the rename durable; best effort
			d.Close()
		}
	}
	return nil
}

// writeSpecial writes data to a path that exists and is no regular file:
// a character device or a named pipe (/dev/null, /dev/stdout, a FIFO) is
// written in place, as a shell redirection would, since renaming a file
// over it would replace the device itself (and, run as root, destroy
// /dev/null for every process of the machine); anything else (a directory,
// a socket) is refused.
func writeSpecial(path string, data []byte, mode os.FileMode) error {
	if mode&(os.ModeCharDevice|os.ModeNamedPipe) == 0 {
		what := "not a regular file"
		if mode.IsDir() {
			what = "a directory"
		}
		return fmt.Errorf("write %s: %s: give a file path", path, what)
	}
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// Target is the file a write to path replaces: path itself, or the file a
// symbolic link at path points to (followed to the end; a dangling link's
// target as written), so that the link stays a link.
func Target(path string) string {
	st, err := os.Lstat(path)
	if err != nil || st.Mode()&os.ModeSymlink == 0 {
		return path
	}
	if t, err := filepath.EvalSymlinks(path); err == nil {
		return t
	}
	link, err := os.Readlink(path)
	if err != nil {
		return path
	}
	if !filepath.IsAbs(link) {
		link = filepath.Join(filepath.Dir(path), link)
	}
	return link
}

// tempPrefix starts the name of every temporary a write of path makes
// beside it; the writer's process id and a random suffix follow.
func tempPrefix(path string) string { return "." + filepath.Base(path) + ".tmp-" }

// Stale lists the temporaries beside path that a write of path left when
// its process died before renaming them into place (killed mid-write):
// those whose writer's process is gone, and those of an unknown writer
// older than StaleAge. A live writer's temporary is never listed.
func Stale(path string) []string {
	prefix := tempPrefix(path)
	matches, _ := filepath.Glob(filepath.Join(filepath.Dir(path), globEscape(prefix)+"*"))
	var out []string
	for _, m := range matches {
		rest := strings.TrimPrefix(filepath.Base(m), prefix)
		pidText, _, ok := strings.Cut(rest, "-")
		if pid, err := strconv.Atoi(pidText); ok && err == nil && pid > 0 {
			if pid != os.Getpid() && !alive(pid) {
				out = append(out, m)
			}
			continue
		}
		if st, err := os.Lstat(m); err == nil && st.Mode().IsRegular() && time.Since(st.ModTime()) > StaleAge {
			out = append(out, m)
		}
	}
	return out
}

// StaleAge is the age past which a temporary of unknown writer is stale.
const StaleAge = time.Hour

// alive reports whether process pid exists (signal 0 is only a check).
func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// globEscape escapes the pattern characters of s for filepath.Glob.
func globEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, "*", `\*`, "?", `\?`, "[", `\[`).Replace(s)
}
