package main

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// FuzzLoadSettings: any settings file either loads into settings that
// validate, or fails as an input error (exit 2) — never a panic, never
// another exit code.
func FuzzLoadSettings(f *testing.F) {
	f.Add([]byte("runs_dir: runs\neval:\n  concurrency: 4\n"))
	f.Add([]byte("dataset:\n  path: golden.json\n  split: dev\n  dev_fraction: 0.3\n"))
	f.Add([]byte("backend:\n  config: prod.yaml\n  engine:\n    dense: {model: hash-384}\n"))
	f.Add([]byte("datasets:\n  - id: a\n    path: a.json\ndataset_id: a\n"))
	f.Add([]byte("eval: {timeout: 5s, failure_budget: 3}\nscore: {primary: NDCG@10}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(t.TempDir(), "tune.yaml")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		s, err := loadSettings(p, nil, nil)
		if err != nil {
			var ce *codedError
			if !errors.As(err, &ce) || ce.code != exitUsage {
				t.Fatalf("error is not an input error: %v", err)
			}
			return
		}
		if err := s.validate(); err != nil {
			t.Fatalf("loaded settings do not validate: %v", err)
		}
	})
}
