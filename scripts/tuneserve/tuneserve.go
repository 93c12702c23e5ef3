package tuneserve

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Server is a running `tune serve`.
type Server struct {
	// Addr is its base URL (http://127.0.0.1:PORT).
	Addr   string
	cmd    *exec.Cmd
	exited chan struct{}
}

// Start runs `tune serve --config config` in dir (the binary tune) and
// waits until it is ready, it exits, or timeout passes; the last two are
// errors carrying its stderr.
func Start(ctx context.Context, tune, dir, config string, timeout time.Duration) (*Server, error) {
	ready := filepath.Join(dir, "ready")
	cmd := exec.CommandContext(ctx, tune, "serve", "--config", config, "--listen", "127.0.0.1:0", "--ready-file", ready)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &Server{cmd: cmd, exited: make(chan struct{})}
	go func() { cmd.Wait(); close(s.exited) }()
	deadline := time.After(timeout)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		if data, err := os.ReadFile(ready); err == nil && len(bytes.TrimSpace(data)) > 0 {
			s.Addr = "http://" + strings.TrimSpace(string(data))
			return s, nil
		}
		select {
		case <-s.exited:
			return nil, fmt.Errorf("tune serve exited before it was ready:\n%s", stderr.String())
		case <-deadline:
			s.Stop()
			return nil, fmt.Errorf("tune serve not ready after %s:\n%s", timeout, stderr.String())
		case <-tick.C:
		}
	}
}

// Stop asks the server to shut down (SIGTERM) and waits for it.
func (s *Server) Stop() {
	s.cmd.Process.Signal(syscall.SIGTERM)
	<-s.exited
}

// CPU is the server's user + system CPU time so far (0: unknown).
func (s *Server) CPU() time.Duration {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", s.cmd.Process.Pid))
	if err != nil {
		return 0
	}
	// Fields after the command name (which may hold spaces) in ")".
	f := strings.Fields(string(data[bytes.LastIndexByte(data, ')')+1:]))
	if len(f) < 13 {
		return 0
	}
	u, _ := strconv.ParseInt(f[11], 10, 64)
	sy, _ := strconv.ParseInt(f[12], 10, 64)
	const ticks = 100 // USER_HZ on Linux
	return time.Duration(u+sy) * time.Second / ticks
}
