package lancedb

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"time"
)

// SidecarOptions start the sidecar.
type SidecarOptions struct {
	// Node is the node executable (default "node").
	Node string
	// Dir holds server.mjs and its node_modules (npm ci done).
	Dir string
	// Log receives the sidecar's output.
	Log io.Writer
	// Environ is the environment it starts from (nil: none).
	Environ []string
	// StartTimeout bounds the start (default 1 minute).
	StartTimeout time.Duration
}

// Sidecar is a running sidecar process.
type Sidecar struct {
	// URL is its base URL on loopback (http://127.0.0.1:PORT).
	URL  string
	cmd  *exec.Cmd
	done chan struct{}
	mu   sync.Mutex
	err  error // the process's exit, once done is closed
}

// CheckSidecarDir returns nil when dir holds the sidecar (server.mjs) with
// LanceDB installed, else what is missing and how to install it.
func CheckSidecarDir(dir string) error {
	if _, err := os.Stat(filepath.Join(dir, "server.mjs")); err != nil {
		return fmt.Errorf("sidecar: %q holds no server.mjs (want the kind's sidecar directory, backend/lancedb/sidecar)", dir)
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@lancedb", "lancedb", "package.json")); err != nil {
		return fmt.Errorf("sidecar: %q has no node_modules/@lancedb/lancedb: run npm ci there", dir)
	}
	return nil
}

// StartSidecar starts node server.mjs on an ephemeral loopback port and
// waits for the address it prints.
func StartSidecar(ctx context.Context, o SidecarOptions) (*Sidecar, error) {
	if err := CheckSidecarDir(o.Dir); err != nil {
		return nil, fmt.Errorf("lancedb: %w", err)
	}
	if o.Node == "" {
		o.Node = "node"
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	if o.StartTimeout <= 0 {
		o.StartTimeout = time.Minute
	}
	cmd := exec.Command(o.Node, "server.mjs", "127.0.0.1:0")
	cmd.Dir = o.Dir
	cmd.Env = o.Environ
	cmd.Stderr = o.Log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("lancedb: sidecar: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("lancedb: sidecar: start %s: %w", o.Node, err)
	}
	s := &Sidecar{cmd: cmd, done: make(chan struct{})}
	addr := make(chan string, 1)
	go func() {
		r := bufio.NewReader(out)
		line, _ := r.ReadBytes('\n')
		var l struct {
			Listening string `json:"listening"`
		}
		if json.Unmarshal(line, &l) == nil && l.Listening != "" {
			addr <- l.Listening
		} else {
			_, _ = o.Log.Write(line)
		}
		_, _ = io.Copy(o.Log, r)
	}()
	go func() {
		err := cmd.Wait()
		s.mu.Lock()
		s.err = err
		s.mu.Unlock()
		close(s.done)
	}()
	timer := time.NewTimer(o.StartTimeout)
	defer timer.Stop()
	select {
	case a := <-addr:
		s.URL = "http://" + a
		return s, nil
	case <-s.done:
		return nil, fmt.Errorf("lancedb: sidecar exited before listening: %v (its output is in the backend log)", s.exitErr())
	case <-timer.C:
		_ = s.Stop()
		return nil, fmt.Errorf("lancedb: sidecar did not listen within %v", o.StartTimeout)
	case <-ctx.Done():
		_ = s.Stop()
		return nil, ctx.Err()
	}
}

func (s *Sidecar) exitErr() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// Exited reports whether the process has exited.
func (s *Sidecar) Exited() bool {
	select {
	case <-s.done:
		return true
	default:
		return false
	}
}

// Stop ends the process: SIGTERM, then SIGKILL after 10 seconds.
func (s *Sidecar) Stop() error {
	if s.Exited() {
		return nil
	}
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
		return nil
	case <-time.After(10 * time.Second):
		_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
		<-s.done
		return errors.New("lancedb: sidecar: killed after 10 s without exiting on SIGTERM")
	}
}
