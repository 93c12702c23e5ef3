package settings

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzLoadSettings: any settings file either loads into settings that
// validate, or fails with an error (the user's: cmd/tune exits 2) —
// never a panic.
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
		s, err := load(p)
		if err != nil {
			return // Load's errors are all the user's (cmd/tune: exit 2)
		}
		if err := s.Validate(); err != nil {
			t.Fatalf("loaded settings do not validate: %v", err)
		}
	})
}

// load loads the settings file with nothing else set.
func load(file string) (*Settings, error) {
	var s Settings
	if err := Load(&s, &s, file, nil, nil); err != nil {
		return nil, err
	}
	return &s, nil
}
