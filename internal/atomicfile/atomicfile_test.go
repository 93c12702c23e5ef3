package atomicfile_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fusiontune/fusiontune/internal/atomicfile"
)

// TestWriters: each writer creates the file, replaces an existing one with
// the whole new content and mode, and leaves no temporary file behind;
// a path whose directory is missing is an error naming the path.
func TestWriters(t *testing.T) {
	tests := []struct {
		name  string
		write func(string, []byte, os.FileMode) error
	}{
		{"Write", atomicfile.Write},
		{"Replace", atomicfile.Replace},
		{"Renew", atomicfile.Renew},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "engine.yaml")
			for i, content := range []string{"first: 1\n", "second: a longer value\n", "3\n"} {
				perm := os.FileMode(0o644)
				if i == 1 {
					perm = 0o600
				}
				if err := tt.write(path, []byte(content), perm); err != nil {
					t.Fatal(err)
				}
				got, err := os.ReadFile(path)
				if err != nil || string(got) != content {
					t.Fatalf("write %d: %q, %v; want %q", i, got, err, content)
				}
				if st, err := os.Stat(path); err != nil || st.Mode().Perm() != perm {
					t.Fatalf("write %d: mode %v, %v; want %v", i, st.Mode().Perm(), err, perm)
				}
			}
			entries, err := os.ReadDir(dir)
			if err != nil || len(entries) != 1 {
				t.Errorf("directory holds %v, %v; want the file alone", entries, err)
			}
			missing := filepath.Join(dir, "nosuch", "x.yaml")
			if err := tt.write(missing, []byte("x"), 0o644); err == nil || !strings.Contains(err.Error(), missing) {
				t.Errorf("a missing directory: %v, want an error naming %s", err, missing)
			}
		})
	}
}

// TestWriteThroughSymlink: writing to a symbolic link replaces its
// target's content and keeps the link a link (a dangling one too).
func TestWriteThroughSymlink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "real", "search.yaml")
	if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(target, []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "search.yaml")
	if err := os.Symlink("real/search.yaml", link); err != nil {
		t.Fatal(err)
	}
	dangling := filepath.Join(dir, "next.yaml")
	if err := os.Symlink("real/next.yaml", dangling); err != nil {
		t.Fatal(err)
	}
	for _, w := range []struct {
		name  string
		write func(string, []byte, os.FileMode) error
	}{{"Write", atomicfile.Write}, {"Replace", atomicfile.Replace}, {"Renew", atomicfile.Renew}} {
		for _, p := range []string{link, dangling} {
			if err := w.write(p, []byte(w.name+"\n"), 0o644); err != nil {
				t.Fatalf("%s(%s): %v", w.name, p, err)
			}
			if st, err := os.Lstat(p); err != nil || st.Mode()&os.ModeSymlink == 0 {
				t.Errorf("%s(%s): the link is no longer a link (%v)", w.name, p, err)
			}
			if got, err := os.ReadFile(p); err != nil || string(got) != w.name+"\n" {
				t.Errorf("%s(%s): read %q, %v", w.name, p, got, err)
			}
		}
	}
	if got, _ := os.ReadFile(target); string(got) != "Renew\n" {
		t.Errorf("target holds %q", got)
	}
}

// TestStaleTemporaries: a temporary left by a writer that died is removed
// by the next write of the same file; a live writer's is kept, as is a
// recent one of unknown writer.
func TestStaleTemporaries(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "golden.json")
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	files := map[string]bool{ // name: removed by the next write
		fmt.Sprintf(".golden.json.tmp-%d-123", dead.Process.Pid): true,
		fmt.Sprintf(".golden.json.tmp-%d-456", os.Getppid()):     false,
		".golden.json.tmp-3819238123":                            true, // unknown writer, old
		".golden.json.tmp-77":                                    false,
		fmt.Sprintf(".other.json.tmp-%d-1", dead.Process.Pid):    false, // another file's
	}
	old := time.Now().Add(-2 * atomicfile.StaleAge)
	for name := range files {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("partial"), 0o600); err != nil {
			t.Fatal(err)
		}
		if name == ".golden.json.tmp-3819238123" {
			os.Chtimes(p, old, old)
		}
	}
	if err := atomicfile.Write(path, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, removed := range files {
		_, err := os.Stat(filepath.Join(dir, name))
		if removed != os.IsNotExist(err) {
			t.Errorf("%s: removed %v, want %v", name, os.IsNotExist(err), removed)
		}
	}
}

// TestSpecialFilesKept: a write to a device or a named pipe goes into it,
// and never renames a file over it (as root that would replace /dev/null
// for the whole machine); a directory is refused. The device is a null
// device made in a temporary directory (root only), so a regression
// replaces that node, never the machine's /dev/null.
func TestSpecialFilesKept(t *testing.T) {
	dir := t.TempDir()
	null := filepath.Join(dir, "null")
	if err := syscall.Mknod(null, syscall.S_IFCHR|0o666, 1<<8|3); err != nil {
		t.Logf("no device node (%v): the named pipe stands for it", err)
		null = ""
	}
	writers := map[string]func(string, []byte, os.FileMode) error{"Write": atomicfile.Write, "Replace": atomicfile.Replace, "Renew": atomicfile.Renew}
	for name, write := range writers {
		t.Run(name, func(t *testing.T) {
			fifo := filepath.Join(dir, "fifo-"+name)
			if err := syscall.Mkfifo(fifo, 0o600); err != nil {
				t.Fatal(err)
			}
			got := make(chan []byte, 1)
			go func() {
				b, _ := os.ReadFile(fifo) // opens the read end, so the write can open
				got <- b
			}()
			if err := write(fifo, []byte("through the pipe"), 0o644); err != nil {
				t.Fatal(err)
			}
			if st, err := os.Lstat(fifo); err != nil || st.Mode()&os.ModeNamedPipe == 0 {
				t.Fatalf("the pipe was replaced (err %v)", err)
			}
			if b := <-got; string(b) != "through the pipe" {
				t.Errorf("the pipe's reader got %q", b)
			}
			if null != "" {
				if err := write(null, []byte("discarded\n"), 0o644); err != nil {
					t.Fatalf("%s(a null device): %v", name, err)
				}
				if st, err := os.Lstat(null); err != nil || st.Mode()&os.ModeCharDevice == 0 {
					t.Fatalf("the device was replaced (err %v)", err)
				}
			}
			err := write(dir, []byte("x"), 0o644)
			if err == nil || !strings.Contains(err.Error(), "a directory") {
				t.Errorf("%s(a directory) = %v, want a refusal naming a directory", name, err)
			}
		})
	}
}
