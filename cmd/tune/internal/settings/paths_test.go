package settings

import (
	"os"
	"path/filepath"
	"testing"
)

// TestResolvePaths: every path setting written relative in a settings file
// in directory A resolves against A, while the working directory is B;
// those from the environment and the flags resolve against B (and stay as
// written); absolute paths and bare program names are left alone.
func TestResolvePaths(t *testing.T) {
	root := t.TempDir()
	a, b := filepath.Join(root, "A"), filepath.Join(root, "B")
	for _, d := range []string{a, b} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	settingsFile := filepath.Join(a, "tune.yaml")
	err := os.WriteFile(settingsFile, []byte(`dataset:
  path: golden.json
  judgments: qrels.txt
  corpus: data/corpus.jsonl
datasets:
  - {id: one, path: sets/one.json, corpus: /abs/corpus.jsonl}
runs_dir: runs
backend:
  kind: process
  config: prod.yaml
  template: tmpl/engine.yaml.tmpl
  command: [./bin/server, --config, "{config}"]
  health_url: http://127.0.0.1:1/healthz
  search: {url: "http://127.0.0.1:1/search", hits: hits, id: id}
`), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(b)
	t.Setenv("FUSIONTUNE_DATASET_JUDGMENTS", "env/qrels.txt")
	rel := "../A/tune.yaml"
	s, err := load(rel)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		key, got, want string
	}{
		{"dataset.path", s.Dataset.Path, "../A/golden.json"},
		{"dataset.corpus", s.Dataset.Corpus, "../A/data/corpus.jsonl"},
		{"dataset.judgments (environment)", s.Dataset.Judgments, "env/qrels.txt"},
		{"datasets[0].path", s.Datasets[0].Path, "../A/sets/one.json"},
		{"datasets[0].corpus (absolute)", s.Datasets[0].Corpus, "/abs/corpus.jsonl"},
		{"runs_dir", s.RunsDir, "../A/runs"},
		{"backend.config", s.Backend.Config, "../A/prod.yaml"},
		{"backend.template", s.Backend.Template, "../A/tmpl/engine.yaml.tmpl"},
		{"backend.command[0]", s.Backend.Command[0], "../A/bin/server"},
		{"backend.command[1] (an argument)", s.Backend.Command[1], "--config"},
	} {
		if tc.got != tc.want {
			t.Errorf("%s = %q, want %q", tc.key, tc.got, tc.want)
		}
	}

	// The embedded engine's paths become absolute (the engine runs in the
	// run directory); a bare program name stays a PATH lookup.
	err = os.WriteFile(settingsFile, []byte(`backend:
  engine:
    corpus: {path: corpus.jsonl}
    cache_dir: .cache
    dense: {model: "file:vectors.jsonl"}
`), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if s, err = load(rel); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ key, want string }{
		{"corpus.path", filepath.Join(a, "corpus.jsonl")},
		{"cache_dir", filepath.Join(a, ".cache")},
		{"dense.model", "file:" + filepath.Join(a, "vectors.jsonl")},
	} {
		if got := engineString(s.Backend.Engine, tc.key); got != tc.want {
			t.Errorf("backend.engine.%s = %q, want %q", tc.key, got, tc.want)
		}
	}
	err = os.WriteFile(settingsFile, []byte("backend:\n  kind: http\n  config: svc.yaml\n  restart: [systemctl, restart, search]\n  template: t.yaml.tmpl\n  health_url: http://127.0.0.1:1/\n  search: {url: \"http://127.0.0.1:1/s\", hits: hits, id: id}\n"), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if s, err = load(rel); err != nil {
		t.Fatal(err)
	}
	if s.Backend.Restart[0] != "systemctl" || s.Backend.Config != "../A/svc.yaml" {
		t.Errorf("restart %q, config %q", s.Backend.Restart[0], s.Backend.Config)
	}

	// A settings file in the working directory: "./server" stays a path
	// (filepath.Join would make it "server", a PATH lookup).
	t.Chdir(a)
	err = os.WriteFile(settingsFile, []byte(`backend:
  kind: http
  config: svc.yaml
  restart: [./restart.sh, "{config}"]
  template: t.yaml.tmpl
  health_url: http://127.0.0.1:1/
  search: {url: "http://127.0.0.1:1/s", hits: hits, id: id}
`), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if s, err = load("tune.yaml"); err != nil {
		t.Fatal(err)
	}
	if s.Backend.Restart[0] != "./restart.sh" || s.Backend.Config != "svc.yaml" {
		t.Errorf("restart %q, config %q", s.Backend.Restart[0], s.Backend.Config)
	}
}
