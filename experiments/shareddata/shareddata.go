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
	p, ok := find(tb, name)
	if !ok {
		tb.Skipf("shared data %s absent: skipping", p)
	}
	return p
}

// find returns ../shared/data/<name> beside the repository root and
// whether it exists.
func find(tb testing.TB, name string) (string, bool) {
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
	_, err = os.Stat(p)
	return p, err == nil
}

// Required is Path for tests that must not pass unnoticed without the
// data: under CI=true an absent folder fails tb instead of skipping it.
func Required(tb testing.TB, name string) string {
	tb.Helper()
	if os.Getenv("CI") == "true" {
		if p, ok := find(tb, name); !ok {
			tb.Fatalf("shared data %s absent, and CI=true: the test needs ../shared/data (see its README)", p)
		}
	}
	return Path(tb, name)
}
