package atomicfile

import (
	"fmt"
	"os"
	"path/filepath"
)

// Write replaces path with data (file mode perm), atomically and durably:
// the file and the directory entry are fsynced, so a crash leaves either
// the old file or the new one.
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
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
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
