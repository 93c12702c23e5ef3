package main_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Process helpers of the fault and lock tests: they look at real processes
// through /proc.

// waitFor polls cond every 5 ms until it holds or d passes.
func waitFor(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", d, what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// children lists the pids of pid's child processes.
func children(pid int) []int {
	var out []int
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", pid))
	for _, task := range tasks {
		data, _ := os.ReadFile(task)
		for _, f := range strings.Fields(string(data)) {
			if n, err := strconv.Atoi(f); err == nil {
				out = append(out, n)
			}
		}
	}
	return out
}

// written is the number of bytes pid has written so far (/proc/PID/io).
func written(pid int) int64 {
	data, _ := os.ReadFile(fmt.Sprintf("/proc/%d/io", pid))
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "wchar: "); ok {
			n, _ := strconv.ParseInt(v, 10, 64)
			return n
		}
	}
	return 0
}

// processesWith lists the live processes whose command line mentions s.
func processesWith(s string) []int {
	var out []int
	all, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range all {
		data, _ := os.ReadFile(p)
		if bytes.Contains(data, []byte(s)) {
			pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(p)))
			if pid != os.Getpid() && alive(pid) {
				out = append(out, pid)
			}
		}
	}
	return out
}

// alive reports whether pid runs (a zombie counts as dead).
func alive(pid int) bool {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && i+2 < len(s) && s[i+2] != 'Z'
}
