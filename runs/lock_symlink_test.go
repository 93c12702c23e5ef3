package runs_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/fusiontune/fusiontune/runs"
)

// TestConfigLockPathResolved: every path to one config (a symbolic link
// to it, a link to its directory, a relative path) has one lock, beside
// the file itself; a second tuner through a link is refused.
func TestConfigLockPathResolved(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "svc", "search.yaml")
	if err := os.MkdirAll(filepath.Dir(real), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(real, []byte("k: 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fileLink := filepath.Join(dir, "live.yaml")
	dirLink := filepath.Join(dir, "current")
	if err := os.Symlink("svc/search.yaml", fileLink); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("svc", dirLink); err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(dir, "svc", ".search.yaml.lock")
	for _, p := range []string{real, fileLink, filepath.Join(dirLink, "search.yaml")} {
		if got := runs.ConfigLockPath(p); got != want {
			t.Errorf("ConfigLockPath(%s) = %s, want %s", p, got, want)
		}
	}
	l, err := runs.LockConfig(real, []string{"tune", "first"})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release()
	if l2, err := runs.LockConfig(fileLink, []string{"tune", "second"}); err == nil {
		l2.Release()
		t.Fatal("a second lock through a symbolic link was taken")
	}
}
