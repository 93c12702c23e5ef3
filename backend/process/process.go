package process

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
	"github.com/fusiontune/fusiontune/backend/render"
	"github.com/fusiontune/fusiontune/internal/atomicfile"
)

// Defaults for Options.
const (
	DefaultStartTimeout = 2 * time.Minute
	DefaultStopTimeout  = 10 * time.Second
)

// Dialer builds the Searcher that talks to a started service. addr is the
// address the service reported in its ready file ("" when Options.ReadyFile
// is not used).
type Dialer func(addr string) (backend.Searcher, error)

// Options configure a process Backend.
type Options struct {
	// Command is the argv of the service. The placeholders {config} and
	// {ready_file} are replaced, as whole arguments or inside one, by the
	// config path and the ready-file path; nothing else is interpreted.
	Command []string
	// Dir is the working directory of the service. Environ is the
	// environment it starts from (the command layer passes tune's own,
	// os.Environ()) and Env is added to it; with neither, the service
	// inherits tune's environment (os/exec's rule for no environment).
	Dir     string
	Environ []string
	Env     []string
	// ConfigPath is where Apply writes the rendered config.
	ConfigPath string
	Render     render.Func
	// ReadyFile, when set, is removed before each start; the service writes
	// its listen address there once ready.
	ReadyFile string
	Dial      Dialer
	// StartTimeout bounds Restart+Ready; StopTimeout is the grace period
	// between SIGTERM and SIGKILL; Settle is slept after the service first
	// reports ready.
	StartTimeout time.Duration
	StopTimeout  time.Duration
	Settle       time.Duration
	// Log receives the service's stdout and stderr.
	Log io.Writer
}

// Backend runs a search service as a child process.
type Backend struct {
	opts Options

	mu       sync.Mutex
	cmd      *exec.Cmd
	done     chan struct{}
	exitErr  error
	searcher backend.Searcher
	applied  []byte // config bytes written by the last Apply
	running  []byte // config bytes the running process was started with
	restarts int
	// writing is the last Apply's write of the config file (nil once a
	// wait for it took its outcome).
	writing *configWrite
}

// configWrite is a config file being written in the background.
type configWrite struct {
	done chan struct{} // closed once written (or failed)
	err  error
}

var _ backend.Backend = (*Backend)(nil)

// New returns a Backend; nothing is started until Restart.
func New(opts Options) (*Backend, error) {
	if len(opts.Command) == 0 {
		return nil, errors.New("process backend: empty command")
	}
	if opts.ConfigPath == "" || opts.Render == nil || opts.Dial == nil {
		return nil, errors.New("process backend: ConfigPath, Render and Dial are required")
	}
	if opts.StartTimeout == 0 {
		opts.StartTimeout = DefaultStartTimeout
	}
	if opts.StopTimeout == 0 {
		opts.StopTimeout = DefaultStopTimeout
	}
	if opts.Log == nil {
		opts.Log = io.Discard
	}
	return &Backend{opts: opts}, nil
}

// Apply renders params into the config file (atomically, without fsync:
// the file is a scratch copy the tuner records durably with the trial;
// atomicfile.Renew, the old file removed first, which spares ext4's flush
// of a file renamed over another). The running service is not touched
// until Restart, which reads the file. A render error is returned at
// once; the file is written in the background, while Restart stops the
// running service (a trial's config takes a few hundred microseconds to
// write, its service milliseconds to stop): Restart, Close and the next
// Apply wait for the write and return its error.
func (b *Backend) Apply(_ context.Context, params map[string]any) error {
	data, err := b.opts.Render(params)
	if err != nil {
		return fmt.Errorf("apply: render config: %w", err)
	}
	if err := b.written(); err != nil {
		return err // the previous config, which no Restart waited for
	}
	w := &configWrite{done: make(chan struct{})}
	go func() {
		w.err = b.writeConfig(data)
		close(w.done)
	}()
	b.mu.Lock()
	b.applied, b.writing = data, w
	b.mu.Unlock()
	return nil
}

// writeConfig writes data to the config file.
func (b *Backend) writeConfig(data []byte) error {
	if err := os.MkdirAll(filepath.Dir(b.opts.ConfigPath), 0o755); err != nil {
		return err
	}
	return atomicfile.Renew(b.opts.ConfigPath, data, 0o644)
}

// written waits for the config file Apply is writing, if any, and
// returns the write's error (to every caller waiting meanwhile; once
// taken, a later call has nothing to wait for).
func (b *Backend) written() error {
	b.mu.Lock()
	w := b.writing
	b.mu.Unlock()
	if w == nil {
		return nil
	}
	<-w.done
	b.mu.Lock()
	if b.writing == w {
		b.writing = nil
	}
	b.mu.Unlock()
	if w.err != nil {
		return fmt.Errorf("apply: %w", w.err)
	}
	return nil
}

// NeedsRestart reports whether the applied config differs from the one the
// running service was started with, or nothing runs (never started, or the
// process died, e.g. killed during the previous trial).
func (b *Backend) NeedsRestart() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.cmd == nil {
		return true
	}
	select {
	case <-b.done:
		return true
	default:
	}
	return !bytes.Equal(b.applied, b.running)
}

// Restarts counts the starts of the service so far.
func (b *Backend) Restarts() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.restarts
}

// Restart stops the running service, if any, and starts it on the applied
// config. It returns once the process has started; call Ready to wait for
// it to serve.
func (b *Backend) Restart(ctx context.Context) error {
	// The running service stops while the applied config is written.
	stopped := make(chan error, 1)
	go func() { stopped <- b.stop() }()
	werr := b.written()
	if err := <-stopped; err != nil {
		return errors.Join(fmt.Errorf("restart: %w", err), werr)
	}
	if werr != nil {
		return werr // no service starts on a config not written
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.opts.ReadyFile != "" {
		if err := os.Remove(b.opts.ReadyFile); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("restart: %w", err)
		}
	}
	argv := make([]string, len(b.opts.Command))
	for i, a := range b.opts.Command {
		a = strings.ReplaceAll(a, "{config}", b.opts.ConfigPath)
		argv[i] = strings.ReplaceAll(a, "{ready_file}", b.opts.ReadyFile)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = b.opts.Dir
	cmd.Env = append(slices.Clip(b.opts.Environ), b.opts.Env...)
	cmd.Stdout = b.opts.Log
	cmd.Stderr = b.opts.Log
	// The service dies with the tuner, even when the tuner is SIGKILLed.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("restart: start %s: %w", argv[0], err)
	}
	done := make(chan struct{})
	b.cmd, b.done, b.exitErr, b.searcher = cmd, done, nil, nil
	b.running = b.applied
	b.restarts++
	go func() {
		err := cmd.Wait()
		b.mu.Lock()
		b.exitErr = err
		b.mu.Unlock()
		close(done)
	}()
	return nil
}

// Ready waits until the service answers its health check, the process
// exits, or StartTimeout passes.
func (b *Backend) Ready(ctx context.Context) error {
	b.mu.Lock()
	done, cmd := b.done, b.cmd
	b.mu.Unlock()
	if cmd == nil {
		return errors.New("ready: service not started")
	}
	ctx, cancel := context.WithTimeout(ctx, b.opts.StartTimeout)
	defer cancel()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		s, err := b.dial()
		if err == nil {
			probe, pcancel := context.WithTimeout(ctx, 2*time.Second)
			err = s.Ready(probe)
			pcancel()
			if err == nil {
				if b.opts.Settle > 0 {
					time.Sleep(b.opts.Settle)
				}
				return nil
			}
		}
		select {
		case <-done:
			b.mu.Lock()
			exitErr := b.exitErr
			b.mu.Unlock()
			return fmt.Errorf("ready: service exited before it was ready: %v (see its log)", exitErr)
		case <-ctx.Done():
			if err == nil {
				err = ctx.Err()
			}
			return fmt.Errorf("ready: service not ready after %s: %w", b.opts.StartTimeout, err)
		case <-tick.C:
		}
	}
}

// dial returns the searcher for the running service, creating it once the
// ready file names the address.
func (b *Backend) dial() (backend.Searcher, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.searcher != nil {
		return b.searcher, nil
	}
	addr := ""
	if b.opts.ReadyFile != "" {
		data, err := os.ReadFile(b.opts.ReadyFile)
		if err != nil || len(bytes.TrimSpace(data)) == 0 {
			return nil, errors.New("service has not written its ready file yet")
		}
		addr = strings.TrimSpace(string(data))
	}
	s, err := b.opts.Dial(addr)
	if err != nil {
		return nil, err
	}
	b.searcher = s
	return s, nil
}

// exitGrace is how long a failed search waits for the process to be
// reaped: the connection breaks a moment before Wait returns.
const exitGrace = 200 * time.Millisecond

// Search runs a query on the running service. When the service process
// has exited (killed, crashed) it fails at once, and a search in flight
// is cut short, with an error wrapping backend.ErrServiceExited that gives
// the exit status.
func (b *Backend) Search(ctx context.Context, req backend.SearchRequest) (backend.SearchResponse, error) {
	s, done, err := b.live("search")
	if err != nil {
		return backend.SearchResponse{}, err
	}
	var resp backend.SearchResponse
	err = b.untilExit(ctx, done, func(ctx context.Context) error {
		var err error
		resp, err = s.Search(ctx, req)
		return err
	})
	return resp, err
}

// live is the running service's searcher and the channel closed when
// its process exits (nil: none started); the exit's error
// (backend.ErrServiceExited) when it has exited, what's dial error
// otherwise.
func (b *Backend) live(what string) (backend.Searcher, <-chan struct{}, error) {
	b.mu.Lock()
	done := b.done
	b.mu.Unlock()
	if done != nil {
		select {
		case <-done:
			return nil, nil, b.exited()
		default:
		}
	}
	s, err := b.dial()
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", what, err)
	}
	return s, done, nil
}

// untilExit runs call, cut short when the service's process exits
// (done closed); a call that fails while the process exits, or within
// exitGrace of its failure, fails with the exit's error.
func (b *Backend) untilExit(ctx context.Context, done <-chan struct{}, call func(context.Context) error) error {
	if done == nil {
		return call(ctx)
	}
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-done:
			cancel()
		case <-sctx.Done():
		}
	}()
	err := call(sctx)
	if err != nil && ctx.Err() == nil {
		select {
		case <-done:
			return b.exited()
		case <-time.After(exitGrace):
		}
	}
	return err
}

// exited is the error of a search on a service whose process has exited.
func (b *Backend) exited() error {
	b.mu.Lock()
	status := b.exitErr
	b.mu.Unlock()
	if status == nil {
		return fmt.Errorf("search: %w with status 0 (see its log)", backend.ErrServiceExited)
	}
	return fmt.Errorf("search: %w: %v (see its log)", backend.ErrServiceExited, status)
}

// Close stops the service once the config file Apply is writing, if any,
// is written (nothing is left half written), and returns the write's
// error with the stop's.
func (b *Backend) Close() error {
	werr := b.written()
	return errors.Join(b.stop(), werr)
}

// stop sends SIGTERM to the service's process group, then SIGKILL after
// StopTimeout, and waits for it to exit.
func (b *Backend) stop() error {
	b.mu.Lock()
	cmd, done := b.cmd, b.done
	b.cmd, b.searcher = nil, nil
	b.mu.Unlock()
	if cmd == nil {
		return nil
	}
	select {
	case <-done:
		return nil
	default:
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
	select {
	case <-done:
		return nil
	case <-time.After(b.opts.StopTimeout):
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	select {
	case <-done:
		return nil
	case <-time.After(5 * time.Second):
		return fmt.Errorf("stop: process %d did not exit after SIGKILL", cmd.Process.Pid)
	}
}

// Pid returns the running service's process id, or 0.
func (b *Backend) Pid() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.cmd == nil || b.cmd.Process == nil {
		return 0
	}
	return b.cmd.Process.Pid
}

// Verifier returns a promotion check that starts the service of o as a
// child on its config, waits until it is ready, runs check against it and
// stops it again. A config file that does not exist (a rollback past the
// first promotion) has no service to start: the check does nothing.
func Verifier(o Options, check func(context.Context, backend.Searcher) error) (func(context.Context) error, error) {
	pb, err := New(o)
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context) error {
		if _, err := os.Stat(o.ConfigPath); errors.Is(err, os.ErrNotExist) {
			return nil
		}
		defer pb.Close()
		if err := pb.Restart(ctx); err != nil {
			return err
		}
		if err := pb.Ready(ctx); err != nil {
			return err
		}
		return check(ctx, pb)
	}, nil
}
