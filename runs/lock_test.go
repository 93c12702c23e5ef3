package runs_test

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fusiontune/fusiontune/runs"
)

// TestLockHelperProcess is not a test: re-executed by the lock tests, it
// takes the lock named by LOCK_HELPER, says so on stdout, optionally starts
// a child (LOCK_HELPER_CHILD) and waits to be killed.
func TestLockHelperProcess(t *testing.T) {
	path := os.Getenv("LOCK_HELPER")
	if path == "" {
		t.Skip("helper process only")
	}
	l, err := runs.Acquire(path, "test lock", []string{"helper"})
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(3)
	}
	child := 0
	if os.Getenv("LOCK_HELPER_CHILD") != "" {
		c := exec.Command("sleep", "60")
		if err := c.Start(); err != nil {
			fmt.Println("error:", err)
			os.Exit(3)
		}
		child = c.Process.Pid
	}
	fmt.Printf("locked %d\n", child)
	time.Sleep(time.Minute)
	l.Release()
	os.Exit(0)
}

// holdLock starts a helper process holding the lock at path and returns it
// with the pid of its child (0 without one).
func holdLock(t *testing.T, path string, withChild bool) (*exec.Cmd, int) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestLockHelperProcess$")
	cmd.Env = append(os.Environ(), "LOCK_HELPER="+path)
	if withChild {
		cmd.Env = append(cmd.Env, "LOCK_HELPER_CHILD=1")
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "locked ") {
		t.Fatalf("helper: %q %v", line, err)
	}
	var child int
	fmt.Sscanf(line, "locked %d", &child)
	return cmd, child
}

// TestLockTwoProcesses: a second process gets ErrLocked naming the holder's
// pid and start time; once the holder is SIGKILLed the lock is free and
// the next holder is told it took over a stale lock.
func TestLockTwoProcesses(t *testing.T) {
	path := filepath.Join(t.TempDir(), runs.LockFile)
	before := time.Now().Add(-time.Second)
	holder, _ := holdLock(t, path, false)

	_, err := runs.Acquire(path, "runs directory X", nil)
	var le *runs.LockedError
	if !errors.As(err, &le) || !errors.Is(err, runs.ErrLocked) {
		t.Fatalf("second Acquire: %v, want a LockedError", err)
	}
	if le.Holder.PID != holder.Process.Pid {
		t.Errorf("holder pid %d, want %d", le.Holder.PID, holder.Process.Pid)
	}
	if le.Holder.Started.Before(before.Truncate(time.Second)) || le.Holder.Started.After(time.Now()) {
		t.Errorf("holder start time %s out of range", le.Holder.Started)
	}
	msg := err.Error()
	for _, want := range []string{"runs directory X is in use", fmt.Sprintf("pid %d", holder.Process.Pid), "started " + le.Holder.Started.Format(time.RFC3339), path} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q lacks %q", msg, want)
		}
	}

	holder.Process.Signal(syscall.SIGKILL)
	holder.Wait()
	l, err := runs.Acquire(path, "runs directory X", nil)
	if err != nil {
		t.Fatalf("lock of a SIGKILLed holder not taken over: %v", err)
	}
	if l.Stale == nil || l.Stale.PID != holder.Process.Pid {
		t.Errorf("stale holder %+v, want pid %d", l.Stale, holder.Process.Pid)
	}
	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
	l, err = runs.Acquire(path, "runs directory X", nil)
	if err != nil || l.Stale != nil {
		t.Fatalf("after a clean release: %v, stale %+v", err, l.Stale)
	}
	l.Release()
}

// TestLockNotInherited: a child started by the holder (a backend service)
// does not keep the lock alive after the holder dies.
func TestLockNotInherited(t *testing.T) {
	path := filepath.Join(t.TempDir(), runs.LockFile)
	holder, child := holdLock(t, path, true)
	if child == 0 {
		t.Fatal("helper started no child")
	}
	defer syscall.Kill(child, syscall.SIGKILL)
	holder.Process.Signal(syscall.SIGKILL)
	holder.Wait()
	if err := syscall.Kill(child, 0); err != nil {
		t.Fatalf("the holder's child is gone already (%v): the test proves nothing", err)
	}
	l, err := runs.Acquire(path, "runs directory X", nil)
	if err != nil {
		t.Fatalf("the holder's child keeps the lock: %v", err)
	}
	l.Release()
}

func TestStoreAndConfigLocks(t *testing.T) {
	dir := t.TempDir()
	s, err := runs.Open(filepath.Join(dir, "runs"))
	if err != nil {
		t.Fatal(err)
	}
	l, err := s.Lock(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release()
	if _, err := s.List(); err != nil {
		t.Fatalf("the lock file disturbs the listing: %v", err)
	}
	cfg := filepath.Join(dir, "prod.yaml")
	if got, want := runs.ConfigLockPath(cfg), filepath.Join(dir, ".prod.yaml.lock"); got != want {
		t.Errorf("ConfigLockPath = %s, want %s", got, want)
	}
	cl, err := runs.LockConfig(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	cl.Release()
	if _, err := os.Stat(cfg); !os.IsNotExist(err) {
		t.Errorf("locking created the config itself: %v", err)
	}
}
