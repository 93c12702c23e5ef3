package httpbackend

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/internal/atomicfile"
	"github.com/fusiontune/fusiontune/internal/userfile"
)

// Defaults of Options.
const (
	DefaultRestartTimeout = 2 * time.Minute
	DefaultReadyTimeout   = 2 * time.Minute
	// restoreTimeout bounds Close's restore (restart and ready included).
	restoreTimeout = 5 * time.Minute
)

// Options configure a Backend.
type Options struct {
	// ConfigPath is the service's config file: Apply rewrites it, Close
	// restores the bytes it had before the first Apply.
	ConfigPath string
	// Render turns a trial's parameters into the config file's bytes.
	Render func(params map[string]any) ([]byte, error)
	// BackupPath, when set, receives a copy of the original config bytes
	// before the first Apply, so they survive even a killed tuner.
	BackupPath string
	// Restart is the argv of the user's restart command; "{config}" in an
	// argument (or in Env) is replaced by ConfigPath. It runs in Dir with
	// Env added to Environ (the command layer passes tune's environment,
	// os.Environ(); with neither, the command inherits it, os/exec's rule
	// for no environment), in its own process group, and must exit 0.
	Restart []string
	Dir     string
	Environ []string
	Env     []string
	// RestartTimeout bounds the restart command; ReadyTimeout bounds the
	// health polling after it; Settle is slept once the service is ready.
	RestartTimeout time.Duration
	ReadyTimeout   time.Duration
	Settle         time.Duration
	// Search talks to the service.
	Search *Searcher
	// Log receives the restart command's output.
	Log io.Writer
}

// Backend is a service the tuner reconfigures but does not own.
type Backend struct {
	o Options

	mu       sync.Mutex
	backedUp bool
	existed  bool
	original []byte
	mode     os.FileMode
	changed  bool   // the config file no longer holds original
	applied  []byte // bytes of the last Apply
	running  []byte // bytes the service was last restarted on
	started  bool
	restarts int
}

var _ backend.Backend = (*Backend)(nil)

// New checks o; nothing is read or run until Apply or Restart.
func New(o Options) (*Backend, error) {
	if o.ConfigPath == "" {
		return nil, errors.New("http backend: config path is required")
	}
	if len(o.Restart) == 0 || o.Restart[0] == "" {
		return nil, errors.New("http backend: restart command is required")
	}
	if o.Search == nil {
		return nil, errors.New("http backend: searcher is required")
	}
	if o.RestartTimeout <= 0 {
		o.RestartTimeout = DefaultRestartTimeout
	}
	if o.ReadyTimeout <= 0 {
		o.ReadyTimeout = DefaultReadyTimeout
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	return &Backend{o: o}, nil
}

// Apply backs up the config file (first call only), then replaces it
// atomically with the rendered config. The service is not touched.
func (b *Backend) Apply(_ context.Context, params map[string]any) error {
	if b.o.Render == nil {
		return errors.New("apply: no renderer")
	}
	data, err := b.o.Render(params)
	if err != nil {
		return fmt.Errorf("apply: render config: %w", err)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if err := b.backup(); err != nil {
		return fmt.Errorf("apply: %w", err)
	}
	if err := atomicfile.Write(b.o.ConfigPath, data, b.mode); err != nil {
		return fmt.Errorf("apply: %w", err)
	}
	b.changed = true
	b.applied = data
	return nil
}

// backup keeps the original bytes and mode of the config file, in memory
// and at BackupPath.
func (b *Backend) backup() error {
	if b.backedUp {
		return nil
	}
	b.mode = 0o644
	data, err := userfile.Read(b.o.ConfigPath, userfile.Default)
	switch {
	case err == nil:
		b.existed = true
		if st, err := os.Stat(b.o.ConfigPath); err == nil {
			b.mode = st.Mode().Perm()
		}
	case errors.Is(err, os.ErrNotExist):
	default:
		return fmt.Errorf("back up %s: %w", b.o.ConfigPath, err)
	}
	if b.existed && b.o.BackupPath != "" {
		if err := os.MkdirAll(filepath.Dir(b.o.BackupPath), 0o755); err != nil {
			return fmt.Errorf("back up %s: %w", b.o.ConfigPath, err)
		}
		if err := atomicfile.Write(b.o.BackupPath, data, b.mode); err != nil {
			return fmt.Errorf("back up %s: %w", b.o.ConfigPath, err)
		}
	}
	b.original, b.backedUp = data, true
	return nil
}

// NeedsRestart reports whether the applied config differs from the one the
// service was last restarted on by this backend (always true before the
// first restart: what the service runs on is unknown).
func (b *Backend) NeedsRestart() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return !b.started || !bytes.Equal(b.applied, b.running)
}

// Restarts counts the restart commands run so far.
func (b *Backend) Restarts() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.restarts
}

// Restart runs the restart command and waits for it to exit. The command
// is not killed when ctx is cancelled (a half-done restart is worse than a
// finished one); RestartTimeout bounds it.
func (b *Backend) Restart(ctx context.Context) error {
	b.mu.Lock()
	applied := b.applied
	b.mu.Unlock()
	if err := b.runRestart(ctx); err != nil {
		return err
	}
	b.mu.Lock()
	b.started, b.running = true, applied
	b.restarts++
	b.mu.Unlock()
	return nil
}

func (b *Backend) runRestart(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), b.o.RestartTimeout)
	defer cancel()
	argv := make([]string, len(b.o.Restart))
	for i, a := range b.o.Restart {
		argv[i] = strings.ReplaceAll(a, "{config}", b.o.ConfigPath)
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = b.o.Dir
	cmd.Env = slices.Clip(b.o.Environ)
	for _, e := range b.o.Env {
		cmd.Env = append(cmd.Env, strings.ReplaceAll(e, "{config}", b.o.ConfigPath))
	}
	var tail tailBuffer
	w := io.MultiWriter(b.o.Log, &tail)
	cmd.Stdout, cmd.Stderr = w, w
	// Its own process group: a Ctrl-C at the terminal reaches the tuner,
	// which restores the config, not the service the command starts.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	// A service started in the background may keep the output pipe open.
	cmd.WaitDelay = 2 * time.Second
	err := cmd.Run()
	if errors.Is(err, exec.ErrWaitDelay) {
		err = nil
	}
	if err != nil {
		if ctx.Err() != nil {
			err = fmt.Errorf("%w (timeout %s)", err, b.o.RestartTimeout)
		}
		return fmt.Errorf("restart: %s: %w; output: %s", argv[0], err, tail.String())
	}
	return nil
}

// Ready polls the health URL until it answers, ReadyTimeout passes or ctx
// ends, then sleeps the settle delay.
func (b *Backend) Ready(ctx context.Context) error {
	rctx, cancel := context.WithTimeout(ctx, b.o.ReadyTimeout)
	defer cancel()
	if err := b.o.Search.Ready(rctx); err != nil {
		return fmt.Errorf("ready after %s: %w", b.o.ReadyTimeout, err)
	}
	if b.o.Settle > 0 {
		select {
		case <-time.After(b.o.Settle):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// Search queries the service.
func (b *Backend) Search(ctx context.Context, req backend.SearchRequest) (backend.SearchResponse, error) {
	return b.o.Search.Search(ctx, req)
}

// Close restores the original config bytes (and file mode) if Apply changed
// them, then restarts the service on them and waits until it is ready. It
// runs on a fresh context, so a cancelled sweep still restores. Calling it
// again does nothing.
func (b *Backend) Close() error {
	b.mu.Lock()
	changed, existed, original, mode := b.changed, b.existed, b.original, b.mode
	b.mu.Unlock()
	if !changed {
		return nil
	}
	var err error
	if existed {
		err = atomicfile.Write(b.o.ConfigPath, original, mode)
	} else {
		err = os.Remove(b.o.ConfigPath)
	}
	if err != nil {
		return fmt.Errorf("restore %s: %w", b.o.ConfigPath, err)
	}
	b.mu.Lock()
	b.changed, b.applied = false, original
	b.mu.Unlock()
	if !existed {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), restoreTimeout)
	defer cancel()
	if err := b.Restart(ctx); err != nil {
		return fmt.Errorf("restore %s: config restored, but %w", b.o.ConfigPath, err)
	}
	if err := b.Ready(ctx); err != nil {
		return fmt.Errorf("restore %s: config restored, but the service is not back: %w", b.o.ConfigPath, err)
	}
	return nil
}

// tailBuffer keeps the last bytes written to it, for error messages.
type tailBuffer struct {
	mu  sync.Mutex
	buf []byte
}

const tailBytes = 2048

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > tailBytes {
		t.buf = t.buf[len(t.buf)-tailBytes:]
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := strings.TrimSpace(string(t.buf))
	if s == "" {
		return "(none)"
	}
	return s
}
