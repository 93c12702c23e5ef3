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
			case <-time.After(5 * time.Second):
				cmd.Process.Kill()
				<-done
				t.Fatalf("tune check still running 5 s after %v\n%s", sig, stderr.String())
			}
			took := time.Since(sent)
			t.Logf("stopped %s after %v", took.Round(time.Millisecond), sig)
			if took > time.Second {
				t.Errorf("stopped %s after %v, want within a second", took.Round(time.Millisecond), sig)
			}
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
