package main_test

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestFaultCheckInterrupted: tune check on a golden set that takes
// seconds to read (hundreds of thousands of queries) stops within a
// second of SIGINT or SIGTERM, exit 1 "interrupted".
func TestFaultCheckInterrupted(t *testing.T) {
	if testing.Short() {
		t.Skip("a golden set of 300,000 queries")
	}
	dir := t.TempDir()
	golden := filepath.Join(dir, "huge.jsonl")
	writeHugeTopics(t, golden, 300_000)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			cmd := exec.Command(tuneBinary(t), "check", "--kind", "golden", "--judgments", golden+".qrels", golden)
			cmd.Dir = dir
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			time.Sleep(500 * time.Millisecond) // inside the read
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			sent := time.Now()
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case err := <-done:
				if code := exitCodeOf(t, err); code != 1 {
					t.Errorf("exit %d after %v, want 1\n%s", code, sig, stderr.String())
				}
			case <-time.After(20 * time.Second):
				cmd.Process.Kill()
				<-done
				t.Fatalf("tune check still running 20 s after %v\n%s", sig, stderr.String())
			}
			took := time.Since(sent)
			// How long it took is logged, not asserted (timings are for
			// benchmarks): exit 1 saying "interrupted" is what proves the
			// signal was honoured, since an unhonoured one lets the check
			// run to its end and exit 0.
			t.Logf("stopped %s after %v", took.Round(time.Millisecond), sig)
			if !strings.Contains(stderr.String(), "tune: interrupted") {
				t.Errorf("stderr does not say interrupted:\n%s", stderr.String())
			}
		})
	}
}

// writeHugeTopics writes n TREC topics as JSONL at path and their qrels
// at path+".qrels".
func writeHugeTopics(t *testing.T, path string, n int) {
	t.Helper()
	write := func(p string, line func(w *bufio.Writer, i int)) {
		f, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		w := bufio.NewWriter(f)
		for i := range n {
			line(w, i)
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
	}
	write(path, func(w *bufio.Writer, i int) {
		fmt.Fprintf(w, `{"id": "q%d", "query": "how do I return item number %d"}`+"\n", i, i)
	})
	write(path+".qrels", func(w *bufio.Writer, i int) {
		fmt.Fprintf(w, "q%d 0 doc-%d 2\n", i, i%1000)
	})
}

// TestFaultDevZero: a device given as golden set, judgments or settings
// (/dev/zero would be read forever) is refused at once, exit 2, naming
// the path, and a sweep leaves no run behind.
func TestFaultDevZero(t *testing.T) {
	shortlist, err := filepath.Abs("../../experiments/shortlist.json")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		settings string
		args     []string
	}{
		{name: "check", args: []string{"check", "/dev/zero"}},
		{name: "check golden", args: []string{"check", "--kind", "golden", "/dev/zero"}},
		{name: "check judgments", args: []string{"check", "--kind", "golden", "--judgments", "/dev/zero", "topics.jsonl"}},
		{name: "settings", args: []string{"--config", "/dev/zero", "--experiments", shortlist}},
		{name: "sweep", settings: "dataset:\n  path: /dev/zero\n", args: []string{"--experiments", shortlist}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "topics.jsonl"), []byte(`{"id": "q1", "query": "returns"}`+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if tt.settings != "" {
				if err := os.WriteFile(filepath.Join(dir, "tune.yaml"), []byte(tt.settings), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			cmd := exec.Command(tuneBinary(t), tt.args...)
			cmd.Dir = dir
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			start := time.Now()
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case err := <-done:
				if code := exitCodeOf(t, err); code != 2 {
					t.Errorf("exit %d, want 2\n%s", code, stderr.String())
				}
			case <-time.After(10 * time.Second):
				cmd.Process.Kill()
				<-done
				t.Fatalf("still running after 10 s: /dev/zero is being read\n%s", stderr.String())
			}
			t.Logf("refused in %s", time.Since(start).Round(time.Millisecond))
			if !strings.Contains(stderr.String(), "/dev/zero") || !strings.Contains(stderr.String(), "a character device") {
				t.Errorf("stderr does not name /dev/zero as a device:\n%s", stderr.String())
			}
			if _, err := os.Stat(filepath.Join(dir, "tuning_runs")); !os.IsNotExist(err) {
				t.Errorf("a runs directory was made: %v", err)
			}
		})
	}
}
