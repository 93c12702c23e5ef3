package main_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckRefusesUnknownCategory: tune check on a settings file whose
// gates or promotion.guarded name a category no evaluated query has reports
// it, with the same file:line:col error a sweep gives before its first
// trial, exit 2, and writes nothing (the shipped demo included: it is
// extracted into a throwaway directory).
func TestCheckRefusesUnknownCategory(t *testing.T) {
	demo, _ := filepath.Abs("../../experiments/demo/golden.json")
	corpus, _ := filepath.Abs("../../experiments/demo/corpus.jsonl")
	for _, tc := range []struct {
		name string
		env  []string
	}{
		{"guarded-unknown", []string{"FUSIONTUNE_DATASET_PATH=" + demo, "FUSIONTUNE_DATASET_CORPUS=" + corpus}},
		{"gate-category-unknown", []string{"FUSIONTUNE_DATASET_PATH=" + demo, "FUSIONTUNE_DATASET_CORPUS=" + corpus}},
		{"gate-and-guard-unknown", nil}, // the shipped demo
	} {
		t.Run(tc.name, func(t *testing.T) {
			work := t.TempDir()
			copyTree(t, "testdata/bad", filepath.Join(work, "bad"))
			before := listTree(t, work)
			cache := filepath.Join(t.TempDir(), "cache")
			cmd := exec.Command(tuneBinary(t), "check", "bad/settings/"+tc.name+".bad.yaml")
			cmd.Dir = work
			cmd.Env = append(append(os.Environ(), "XDG_CACHE_HOME="+cache), tc.env...)
			var stdout, stderr strings.Builder
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if code := exitCodeOf(t, cmd.Run()); code != 2 {
				t.Errorf("exit %d, want 2\nstdout: %s\nstderr: %s", code, stdout.String(), stderr.String())
			}
			want, err := os.ReadFile(filepath.Join("testdata/bad/settings", tc.name+".bad.yaml.err"))
			if err != nil {
				t.Fatal(err)
			}
			for _, line := range strings.Split(strings.TrimSpace(string(want)), "\n") {
				if !strings.Contains(stderr.String(), line) {
					t.Errorf("stderr lacks %q:\n%s", line, stderr.String())
				}
			}
			if after := listTree(t, work); strings.Join(after, "\n") != strings.Join(before, "\n") {
				t.Errorf("files written: %v", diff(after, before))
			}
			if _, err := os.Stat(cache); !os.IsNotExist(err) {
				t.Errorf("cache written")
			}
		})
	}
}
