package main

import (
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/backend/client"
	"github.com/fusiontune/fusiontune/backend/embed"
	"github.com/fusiontune/fusiontune/backend/engine"
	"github.com/fusiontune/fusiontune/backend/process"
	"github.com/fusiontune/fusiontune/experiments"
)

// defaultDenseModel is the demo's dense retriever: hashed character n-grams
// are robust to the misspellings the demo golden set contains.
const defaultDenseModel = "hash-384"

// embeddedSetup prepares the embedded backend: `tune serve` run as a child
// process on an engine config rendered per trial from the base config
// (backend.config file, overlaid by backend.engine, overlaid by the trial's
// parameters).
type embeddedSetup struct {
	s      *settings
	base   map[string]any
	render process.Renderer
	exe    string
}

func newEmbeddedSetup(s *settings, ds *dataset) (*embeddedSetup, error) {
	base := map[string]any{}
	baseDir, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	if s.Backend.Config != "" {
		data, err := os.ReadFile(s.Backend.Config)
		if err != nil {
			return nil, fmt.Errorf("backend.config: %w", err)
		}
		if base, err = process.ReadYAMLMap(data); err != nil {
			return nil, fmt.Errorf("backend.config %s: %w", s.Backend.Config, err)
		}
		process.AbsPaths(base, filepath.Dir(s.Backend.Config), "corpus.path", "cache_dir")
	}
	if len(s.Backend.Engine) > 0 {
		data, err := process.YAMLOverlay(base)(flatten("", s.Backend.Engine))
		if err == nil {
			base, err = process.ReadYAMLMap(data)
		}
		if err != nil {
			return nil, fmt.Errorf("backend.engine: %w", err)
		}
	}
	if err := noLiteralSecrets("", base); err != nil {
		return nil, err
	}
	process.AbsPaths(base, baseDir, "corpus.path", "cache_dir")
	if _, ok := base["corpus"]; !ok {
		base["corpus"] = map[string]any{"path": ds.corpusPath}
	}
	if _, ok := base["cache_dir"]; !ok {
		// Created when the backend starts: bad input writes nothing.
		base["cache_dir"] = userCachePath("engine")
	}
	if dense, _ := base["dense"].(map[string]any); dense == nil || dense["model"] == nil {
		d := map[string]any{}
		for k, v := range dense {
			d[k] = v
		}
		d["model"] = defaultDenseModel
		base["dense"] = d
	}
	if dense, _ := base["dense"].(map[string]any); dense != nil {
		name, _ := dense["api_key_env"].(string)
		addSecretEnv(name)
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("embedded backend: find the tune executable: %w", err)
	}
	return &embeddedSetup{s: s, base: base, render: process.Memo(process.YAMLOverlay(base, experiments.CustomPrefix), renderMemo), exe: exe}, nil
}

// noLiteralSecrets refuses a secret written into the engine config
// (backend.config or backend.engine): secrets come only from environment
// variables, named by a ..._env key, so that no config, snapshot or run
// record ever holds one.
func noLiteralSecrets(prefix string, m map[string]any) error {
	for k, v := range m {
		key := k
		if prefix != "" {
			key = prefix + "." + k
		}
		if sub, ok := v.(map[string]any); ok {
			if err := noLiteralSecrets(key, sub); err != nil {
				return err
			}
			continue
		}
		if isSecretKey(k) {
			return fmt.Errorf("backend.engine %s: secrets are read only from environment variables: name the variable with %s_env (e.g. api_key_env: OPENAI_API_KEY)", key, k)
		}
		if str, ok := v.(string); ok {
			if u, err := url.Parse(str); err == nil && u.User != nil {
				if _, has := u.User.Password(); has {
					return fmt.Errorf("backend.engine %s: a URL with a password: secrets are read only from environment variables (use api_key_env)", key)
				}
			}
		}
	}
	return nil
}

// flatten turns nested maps into dotted keys.
func flatten(prefix string, m map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		key := k
		if prefix != "" {
			key = prefix + "." + k
		}
		if sub, ok := v.(map[string]any); ok {
			for kk, vv := range flatten(key, sub) {
				out[kk] = vv
			}
			continue
		}
		out[key] = v
	}
	return out
}

// check renders every trial's engine config and validates it the way
// `tune serve` will, so a bad parameter fails before any restart.
func (e *embeddedSetup) check(trials []experiments.TrialSpec) error {
	// The settings' own engine keys first: a bad key there is one problem
	// of the settings, not one per trial.
	if data, err := e.render(nil); err != nil {
		return fmt.Errorf("backend.engine: %w", err)
	} else if _, err := engine.ParseConfig(data, "backend.engine", "/"); err != nil {
		return fmt.Errorf("backend.config + backend.engine: engine config: %w", err)
	}
	var problems []string
	for _, t := range trials {
		data, err := e.render(t.Params)
		var cfg engine.Config
		if err == nil {
			cfg, err = engine.ParseConfig(data, "trial "+t.Name, "/")
		}
		if err == nil && cfg.Has(engine.Dense) && !strings.HasPrefix(cfg.Dense.Model, "openai:") {
			// Catch an unknown embedder spec now; openai models are
			// checked by the service itself, which reaches the server.
			_, err = embed.New(cfg.Dense.Model, embed.Options{})
		}
		if err != nil {
			problems = append(problems, fmt.Sprintf("trial %q: engine config: %v", t.Name, err))
		}
	}
	if len(problems) > 0 {
		return errors.New(strings.Join(problems, "\n"))
	}
	return nil
}

// renderMemo bounds the rendered configs a sweep keeps: each trial's is
// rendered to check it, to resolve its replay settings, to record and to
// apply it, and YAML encoding is most of a replayed trial's cost.
const renderMemo = 4096

// describe is the exact config a trial runs on, for its record.
func (e *embeddedSetup) describe(params experiments.Params) string {
	return describeRendered(e.render(params))
}

// describeRendered is a rendered config as a trial's record keeps it: the
// bytes, or the reason rendering failed.
func describeRendered(data []byte, err error) string {
	if err != nil {
		return "render error: " + err.Error()
	}
	return string(data)
}

// backend returns the process backend running `tune serve` with its files
// in runDir/backend.
func (e *embeddedSetup) backend(runDir string, stderr io.Writer) (*process.Backend, error) {
	return e.backendIn(filepath.Join(runDir, "backend"), stderr)
}

// withCacheDir returns a copy of the setup whose engine caches its indexes
// in dir (a replica's own cache).
func (e *embeddedSetup) withCacheDir(dir string) *embeddedSetup {
	base := make(map[string]any, len(e.base))
	for k, v := range e.base {
		base[k] = v
	}
	base["cache_dir"] = dir
	c := *e
	c.base, c.render = base, process.Memo(process.YAMLOverlay(base, experiments.CustomPrefix), renderMemo)
	return &c
}

// backendIn returns the process backend running `tune serve` on its own
// loopback port with its config, ready file and log in dir.
func (e *embeddedSetup) backendIn(dir string, stderr io.Writer) (*process.Backend, error) {
	if c, ok := e.base["cache_dir"].(string); ok {
		if err := os.MkdirAll(c, 0o755); err != nil {
			return nil, fmt.Errorf("cache directory: %w", err)
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	log, err := os.OpenFile(filepath.Join(dir, "serve.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	return process.New(process.Options{
		Command:      []string{e.exe, "serve", "--config", "{config}", "--listen", "127.0.0.1:0", "--ready-file", "{ready_file}"},
		ConfigPath:   filepath.Join(dir, "engine.yaml"),
		ReadyFile:    filepath.Join(dir, "ready"),
		Render:       func(p map[string]any) ([]byte, error) { return e.render(p) },
		Dial:         func(addr string) (backend.Searcher, error) { return client.New("http://" + addr) },
		StartTimeout: e.s.Backend.StartTimeout,
		StopTimeout:  e.s.Backend.StopTimeout,
		Settle:       e.s.Backend.Settle,
		Log:          secrets.Writer(log),
	})
}

// userCacheDir returns (and creates) fusiontune's cache directory sub.
func userCacheDir(sub string) (string, error) {
	dir := userCachePath(sub)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("cache directory: %w", err)
	}
	return dir, nil
}

// userCachePath is fusiontune's cache directory sub, not created.
func userCachePath(sub string) string {
	base, err := os.UserCacheDir()
	if err != nil {
		base = os.TempDir()
	}
	return filepath.Join(base, "fusiontune", sub)
}
