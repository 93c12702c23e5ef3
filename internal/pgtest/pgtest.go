package pgtest

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// Server is one running throwaway PostgreSQL cluster.
type Server struct {
	// Port is the loopback TCP port the server listens on.
	Port int
	// Dir is the temporary directory holding the data directory, the log
	// and the unix socket; it is removed at cleanup.
	Dir string

	bindir string
	cred   *syscall.Credential
	dbs    atomic.Int64
}

// BinDir returns the directory holding initdb, pg_ctl and postgres, or an
// error that says why it was not found.
func BinDir() (string, error) {
	dir := os.Getenv("PGTEST_BINDIR")
	if dir == "" {
		out, err := exec.Command("pg_config", "--bindir").Output()
		if err != nil {
			return "", fmt.Errorf("pg_config --bindir: %w (install postgresql-15)", err)
		}
		dir = strings.TrimSpace(string(out))
		// libpq-dev's pg_config names /usr/bin, where Debian keeps no
		// server binaries: look in the versioned directory instead.
		if _, err := os.Stat(filepath.Join(dir, "initdb")); err != nil {
			if alt := "/usr/lib/postgresql/15/bin"; fileExists(filepath.Join(alt, "initdb")) {
				dir = alt
			}
		}
	}
	for _, name := range []string{"initdb", "pg_ctl", "postgres"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			return "", fmt.Errorf("%s missing in %s (install postgresql-15): %w", name, dir, err)
		}
	}
	return dir, nil
}

// Start starts a fresh cluster and stops and removes it when tb ends. It
// skips tb when the server binaries are absent and fails it on any other
// problem.
func Start(tb testing.TB) *Server {
	tb.Helper()
	bindir, err := BinDir()
	if err != nil {
		skipOrFail(tb, "pgtest: PostgreSQL server binaries not available: %v", err)
	}
	s := &Server{bindir: bindir}
	if os.Geteuid() == 0 {
		name := os.Getenv("PGTEST_USER")
		if name == "" {
			name = "postgres"
		}
		cred, err := credential(name)
		if err != nil {
			skipOrFail(tb, "pgtest: running as root and no unprivileged user for initdb: %v", err)
		}
		s.cred = cred
	}
	// Not tb.TempDir: its parents are private to root, and the server user
	// must reach the directory.
	dir, err := os.MkdirTemp("", "pgtest-")
	if err != nil {
		tb.Fatalf("pgtest: %v", err)
	}
	s.Dir = dir
	tb.Cleanup(func() { _ = os.RemoveAll(dir) })
	if s.cred != nil {
		if err := os.Chown(dir, int(s.cred.Uid), int(s.cred.Gid)); err != nil {
			tb.Fatalf("pgtest: chown %s: %v", dir, err)
		}
	}
	data := filepath.Join(dir, "data")
	if out, err := s.run("initdb", "-D", data, "-U", "postgres", "--auth=trust", "-N", "-E", "UTF8", "--locale=C"); err != nil {
		tb.Fatalf("pgtest: initdb: %v\n%s", err, out)
	}
	// A free port can be taken between the probe and the start: try a few.
	var lastErr error
	for attempt := 0; attempt < 5; attempt++ {
		port, err := freePort()
		if err != nil {
			tb.Fatalf("pgtest: %v", err)
		}
		opts := fmt.Sprintf("-c listen_addresses=127.0.0.1 -p %d -k %s -c fsync=off -c full_page_writes=off -c max_connections=100", port, dir)
		out, err := s.run("pg_ctl", "-D", data, "-l", filepath.Join(dir, "server.log"), "-w", "-t", "60", "-o", opts, "start")
		if err == nil {
			s.Port = port
			tb.Cleanup(func() {
				if out, err := s.run("pg_ctl", "-D", data, "-m", "immediate", "-w", "stop"); err != nil {
					tb.Logf("pgtest: pg_ctl stop: %v\n%s", err, out)
				}
			})
			return s
		}
		log, _ := os.ReadFile(filepath.Join(dir, "server.log"))
		lastErr = fmt.Errorf("pg_ctl start: %v\n%s\n%s", err, out, log)
	}
	tb.Fatalf("pgtest: %v", lastErr)
	return nil
}

// URL returns a postgres:// URL for database db on the server.
func (s *Server) URL(db string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", s.Port, db)
}

// NewDatabase creates an empty database with a fresh name and returns its URL.
func (s *Server) NewDatabase(tb testing.TB) string {
	tb.Helper()
	name := fmt.Sprintf("t%d", s.dbs.Add(1))
	psql := filepath.Join(s.bindir, "psql")
	if _, err := os.Stat(psql); err != nil {
		psql = "psql"
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, psql, "-h", "127.0.0.1", "-p", strconv.Itoa(s.Port), "-U", "postgres",
		"-d", "postgres", "-v", "ON_ERROR_STOP=1", "-c", "CREATE DATABASE "+name)
	if out, err := cmd.CombinedOutput(); err != nil {
		tb.Fatalf("pgtest: create database %s: %v\n%s", name, err, out)
	}
	return s.URL(name)
}

// run runs a server binary, as the unprivileged user when the test is root.
func (s *Server) run(name string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(s.bindir, name), args...)
	cmd.Dir = s.Dir
	if s.cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: s.cred}
	}
	// pg_ctl start leaves the server running with our stdout as its own
	// unless told otherwise; -l sends the server's output to a file, and a
	// buffer here keeps CombinedOutput from waiting on the server.
	var buf bytes.Buffer
	cmd.Stdout = &buf
	cmd.Stderr = &buf
	err := cmd.Run()
	return buf.Bytes(), err
}

// credential looks up the user the server runs as when the test is root.
func credential(name string) (*syscall.Credential, error) {
	u, err := user.Lookup(name)
	if err != nil {
		return nil, fmt.Errorf("user %q: %w (set PGTEST_USER)", name, err)
	}
	uid, err := strconv.ParseUint(u.Uid, 10, 32)
	if err != nil {
		return nil, fmt.Errorf("user %q: uid %q: %w", name, u.Uid, err)
	}
	gid, err := strconv.ParseUint(u.Gid, 10, 32)
	if err != nil {
		return nil, fmt.Errorf("user %q: gid %q: %w", name, u.Gid, err)
	}
	if uid == 0 {
		return nil, fmt.Errorf("user %q is root", name)
	}
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), NoSetGroups: true}, nil
}

// freePort asks the kernel for a free loopback TCP port.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// skipOrFail skips tb when PostgreSQL cannot be started here, except under
// CI (CI set, as .ci/run runs), which installs the server: there a missing
// server fails the test instead of hiding it behind a skip.
func skipOrFail(tb testing.TB, format string, args ...any) {
	tb.Helper()
	if os.Getenv("CI") != "" {
		tb.Fatalf(format+" (CI is set: .ci/run should have installed postgresql-15)", args...)
	}
	tb.Skipf(format, args...)
}
