package querylog

import (
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"os"
	"strconv"
	"sync"

	"github.com/fusiontune/fusiontune/internal/hashmix"
)

// Ranges of the writer's options (a server config's `log` block).
const (
	MinRotateBytes = 1 << 10 // 1 KiB
	MaxRotateBytes = 1 << 40 // 1 TiB
	MaxKeep        = 1000
	// DefaultRotateBytes and DefaultKeep apply when the options leave
	// them zero.
	DefaultRotateBytes = 64 << 20
	DefaultKeep        = 5
)

// Options configures a Writer.
type Options struct {
	// Sample is the share of searches logged, in (0, 1]; 0 means 1. The
	// choice is a hash of the request id, so the same ids are sampled on
	// every run, and a feedback event is logged exactly when its search
	// was.
	Sample float64
	// RotateBytes rotates the file when a line would take it past this
	// size: path becomes path.1, path.1 becomes path.2, and so on.
	// [MinRotateBytes, MaxRotateBytes]; 0 means DefaultRotateBytes.
	RotateBytes int64
	// Keep is how many rotated files are kept, [1, MaxKeep]; 0 means
	// DefaultKeep. The oldest beyond it is removed.
	Keep int
}

// Validate returns the options' problems as "field: what was expected".
func (o Options) Validate() []string {
	var out []string
	if o.Sample < 0 || o.Sample > 1 || math.IsNaN(o.Sample) {
		out = append(out, fmt.Sprintf("sample: must be a number in (0, 1] (got %v)", o.Sample))
	}
	if o.RotateBytes != 0 && (o.RotateBytes < MinRotateBytes || o.RotateBytes > MaxRotateBytes) {
		out = append(out, fmt.Sprintf("rotate_bytes: must be in [%d, %d] (got %d)", MinRotateBytes, int64(MaxRotateBytes), o.RotateBytes))
	}
	if o.Keep < 0 || o.Keep > MaxKeep {
		out = append(out, fmt.Sprintf("keep: must be in [1, %d] (got %d)", MaxKeep, o.Keep))
	}
	return out
}

// Writer appends events to a query log, one JSON line each, safe for
// concurrent use. Each line is written with one write call on a file
// opened for appending.
type Writer struct {
	mu   sync.Mutex
	path string
	opt  Options
	f    *os.File
	size int64
}

// Open opens (creating or appending to) the log at path.
func Open(path string, opt Options) (*Writer, error) {
	if p := opt.Validate(); len(p) > 0 {
		return nil, fmt.Errorf("query log %s: %s", path, p[0])
	}
	if opt.Sample == 0 {
		opt.Sample = 1
	}
	if opt.RotateBytes == 0 {
		opt.RotateBytes = DefaultRotateBytes
	}
	if opt.Keep == 0 {
		opt.Keep = DefaultKeep
	}
	w := &Writer{path: path, opt: opt}
	if err := w.open(); err != nil {
		return nil, err
	}
	return w, nil
}

func (w *Writer) open() error {
	f, err := os.OpenFile(w.path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("query log: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return fmt.Errorf("query log: %w", err)
	}
	w.f, w.size = f, st.Size()
	return nil
}

// Sampled reports whether events of the request id are logged.
func (w *Writer) Sampled(requestID string) bool { return Sampled(requestID, w.opt.Sample) }

// Sampled reports whether a request id falls in a sample of the given
// share: FNV-1a of the id, mixed by SplitMix64's finaliser (FNV alone
// spreads ids that differ in their last characters badly), as a fraction
// of 2^64, below the share.
func Sampled(requestID string, share float64) bool {
	if share >= 1 {
		return true
	}
	h := fnv.New64a()
	h.Write([]byte(requestID))
	return float64(hashmix.Finalize(h.Sum64())>>11)/(1<<53) < share
}

// Write appends the event when its request id is sampled. It refuses an
// event that Check finds malformed, so the log stays readable.
func (w *Writer) Write(e *Event) error {
	if !w.Sampled(e.RequestID) {
		return nil
	}
	if p := e.Check(); p != "" {
		return fmt.Errorf("query log: refusing a malformed event: %s", p)
	}
	line, err := json.Marshal(e)
	if err != nil {
		return fmt.Errorf("query log: %w", err)
	}
	line = append(line, '\n')
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.f == nil {
		return errors.New("query log: closed")
	}
	if w.size > 0 && w.size+int64(len(line)) > w.opt.RotateBytes {
		if err := w.rotate(); err != nil {
			return err
		}
	}
	n, err := w.f.Write(line)
	w.size += int64(n)
	if err != nil {
		return fmt.Errorf("query log: %w", err)
	}
	return nil
}

// rotate shifts path.i to path.(i+1), dropping the oldest beyond Keep,
// moves path to path.1 and opens a new path.
func (w *Writer) rotate() error {
	if err := w.f.Close(); err != nil {
		return fmt.Errorf("query log: %w", err)
	}
	w.f = nil
	name := func(i int) string { return w.path + "." + strconv.Itoa(i) }
	if err := os.Remove(name(w.opt.Keep)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("query log: rotate: %w", err)
	}
	for i := w.opt.Keep - 1; i >= 1; i-- {
		if err := os.Rename(name(i), name(i+1)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("query log: rotate: %w", err)
		}
	}
	if err := os.Rename(w.path, name(1)); err != nil {
		return fmt.Errorf("query log: rotate: %w", err)
	}
	return w.open()
}

// Files returns the log's files oldest first (path.Keep ... path.1, path),
// those that exist: the order Read wants.
func Files(path string) []string {
	var out []string
	for i := MaxKeep; i >= 1; i-- {
		p := path + "." + strconv.Itoa(i)
		if _, err := os.Stat(p); err == nil {
			out = append(out, p)
		}
	}
	if _, err := os.Stat(path); err == nil {
		out = append(out, path)
	}
	return out
}

// Close closes the log file.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.f == nil {
		return nil
	}
	err := w.f.Close()
	w.f = nil
	return err
}
