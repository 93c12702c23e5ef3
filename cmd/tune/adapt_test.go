package main_test

import (
	"strings"
	"testing"
)

// TestAdaptFlags: numeric flags out of range and bad formats are usage
// errors (exit 2) naming the flag, before any run is read.
func TestAdaptFlags(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"folds", []string{"adapt", "latest", "--folds", "1"}, "folds: must be in [2, 20] (got 1)"},
		{"levels", []string{"adapt", "latest", "--levels", "9"}, "levels: must be in [0, 8] (got 9)"},
		{"min leaf", []string{"adapt", "latest", "--min-leaf", "0"}, "min-leaf: must be >= 1 (got 0)"},
		{"format", []string{"adapt", "latest", "--format", "csv"}, `--format: want text or json (got "csv")`},
		{"no run", []string{"adapt"}, "want RUN (got 0 arguments)"},
		{"unknown run", []string{"adapt", "nosuchrun"}, "nosuchrun"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			stdout, stderr, code := runTune(t, t.TempDir(), tc.args...)
			if code != 2 {
				t.Errorf("exit %d, want 2 (stderr %q)", code, stderr)
			}
			if !strings.Contains(stderr, tc.want) {
				t.Errorf("stderr %q lacks %q", stderr, tc.want)
			}
			if stdout != "" {
				t.Errorf("stdout %q, want nothing", stdout)
			}
		})
	}
}
