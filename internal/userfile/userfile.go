package userfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// ErrNotRegular marks a path that is not a regular file (a directory is
// left to the caller, which may read folders).
var ErrNotRegular = errors.New("not a regular file")

// ErrTooLarge marks a file over its size limit.
var ErrTooLarge = errors.New("over the size limit")

// DefaultMaxBytes bounds the user files that have no limit of their own
// (experiment files, settings, engine configs, pool files, label
// imports): far above any real one, low enough that a wrong path cannot
// exhaust memory.
const DefaultMaxBytes = 64 << 20

// Limit is a size limit and the setting that changes it ("" for a fixed
// one), named when a file is refused.
type Limit struct {
	Bytes   int64
	Setting string
}

// Default is the limit of DefaultMaxBytes, which no setting changes.
var Default = Limit{Bytes: DefaultMaxBytes}

func (l Limit) refuse(path string, size int64) error {
	how := "a fixed limit"
	if l.Setting != "" {
		how = "set " + l.Setting + " to raise it"
	}
	return fmt.Errorf("%s: %w: %d bytes, more than %d (%s)", path, ErrTooLarge, size, l.Bytes, how)
}

// Open opens path for reading if it is a regular file or a directory
// (a symbolic link is followed); anything else is refused with
// ErrNotRegular, before it is read.
func Open(path string) (*os.File, error) {
	if err := Check(path); err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			pe.Op = "open" // what opening would have said
		}
		return nil, err // not opened: opening a named pipe blocks
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !st.Mode().IsRegular() && !st.IsDir() {
		f.Close()
		return nil, notRegular(path, st.Mode())
	}
	return f, nil
}

// Check refuses a path that exists and is neither a regular file nor a
// directory, as Open does, without opening it (opening a FIFO blocks).
func Check(path string) error {
	st, err := os.Stat(path)
	if err != nil {
		return err
	}
	if !st.Mode().IsRegular() && !st.IsDir() {
		return notRegular(path, st.Mode())
	}
	return nil
}

func notRegular(path string, m os.FileMode) error {
	what := "a special file"
	switch {
	case m&os.ModeCharDevice != 0:
		what = "a character device"
	case m&os.ModeDevice != 0:
		what = "a device"
	case m&os.ModeNamedPipe != 0:
		what = "a named pipe"
	case m&os.ModeSocket != 0:
		what = "a socket"
	}
	return fmt.Errorf("%s: %w (%s): give a file", path, ErrNotRegular, what)
}

// Read returns the bytes of the regular file at path, refusing a special
// file (Check) and a file of more than l.Bytes bytes (ErrTooLarge, from its
// size before reading, and again should it grow while read).
func Read(path string, l Limit) ([]byte, error) {
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if st.IsDir() {
		return nil, fmt.Errorf("%s: is a directory: give a file", path)
	}
	if st.Size() > l.Bytes {
		return nil, l.refuse(path, st.Size())
	}
	data := make([]byte, 0, st.Size()+1)
	for {
		n, err := f.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if int64(len(data)) > l.Bytes {
			return nil, l.refuse(path, int64(len(data)))
		}
		if errors.Is(err, io.EOF) {
			return data, nil
		}
		if err != nil {
			return nil, err
		}
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)] // the file grew: more room
		}
	}
}
