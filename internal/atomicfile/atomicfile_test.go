package atomicfile_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

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
