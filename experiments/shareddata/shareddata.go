// Package shareddata locates the evaluation data kept outside the
// repository, in ../shared/data beside the repository root, for tests and
// benchmarks that skip when it is absent.
package shareddata

import (
	"os"
	"path/filepath"
	"testing"
)

// Path returns ../shared/data/<name> relative to the repository root (the
// directory holding go.mod, found upward from the working directory),
// skipping tb when it is absent.
func Path(tb testing.TB, name string) string {
	tb.Helper()
	dir, err := os.Getwd()
	if err != nil {
		tb.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			tb.Fatal("no go.mod above the test directory")
		}
		dir = parent
	}
	p := filepath.Join(dir, "..", "shared", "data", name)
	if _, err := os.Stat(p); err != nil {
		tb.Skipf("shared data %s absent (%v): skipping", p, err)
	}
	return p
}
