package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestUsageErrors runs tune in process (run, the binary's own entry) on
// command lines it must refuse before reading any run or log: numeric
// flags out of range and bad formats are usage errors (exit 2) naming
// the flag, nothing on stdout, nothing written.
func TestUsageErrors(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	log := filepath.Join(dir, "queries.jsonl")
	if err := os.WriteFile(log, []byte{}, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"adapt folds", []string{"adapt", "latest", "--folds", "1"}, "folds: must be in [2, 20] (got 1)"},
		{"adapt levels", []string{"adapt", "latest", "--levels", "9"}, "levels: must be in [0, 8] (got 9)"},
		{"adapt min leaf", []string{"adapt", "latest", "--min-leaf", "0"}, "min-leaf: must be >= 1 (got 0)"},
		{"adapt format", []string{"adapt", "latest", "--format", "csv"}, `--format: want text or json (got "csv")`},
		{"adapt no run", []string{"adapt"}, "want RUN (got 0 arguments)"},
		{"adapt unknown run", []string{"adapt", "nosuchrun"}, "nosuchrun"},
		{"judge pool depth", []string{"judge", "pool", "latest", "--depth", "0"}, "--depth: want an integer in [1, 1000] (got 0)"},
		{"judge pool format", []string{"judge", "pool", "latest", "--format", "xml"}, `--format: want text or json (got "xml")`},
		{"leaderboard by", []string{"leaderboard", "--by", "topic"}, `--by: unknown segmentation "topic" (want language, category, difficulty or meta.KEY)`},
		{"plan effect", []string{"plan", "--effect", "1.5"}, `--effect: must be a number in (0, 1] (got "1.5")`},
		{"harvest pool depth", []string{"harvest", "--out", "h.json", "--labels", "labels.db", "--judge", "--pool-depth", "0", log}, "--pool-depth: want an integer in [1, 1000] (got 0)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), tc.args, &stdout, &stderr)
			if code != 2 {
				t.Errorf("exit %d, want 2 (stderr %q)", code, stderr.String())
			}
			if !strings.Contains(stderr.String(), tc.want) {
				t.Errorf("stderr %q lacks %q", stderr.String(), tc.want)
			}
			if stdout.Len() != 0 {
				t.Errorf("stdout %q, want nothing", stdout.String())
			}
			if _, err := os.Stat("h.json"); !os.IsNotExist(err) {
				t.Errorf("a golden set was written (%v)", err)
			}
		})
	}
}
