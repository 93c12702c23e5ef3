package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/backend/embedded"
	"github.com/fusiontune/fusiontune/backend/render"
	"github.com/fusiontune/fusiontune/tuner"
	"github.com/fusiontune/fusiontune/tuner/promote"
)

// productionVerifier returns the promotion's verifier for the settings'
// backend kind (see the kinds' Verify: embedded and process start the
// service, check it and stop it again; http restarts the user's service,
// which stays up).
func (a *app) productionVerifier(s *settings) promote.VerifyFunc {
	return func(config, dir string, check func(context.Context, backend.Searcher) error) (func(context.Context) error, error) {
		switch s.Backend.Kind {
		case kindProcess, kindHTTP, kindPostgres:
			f, err := a.newFactory(s, "")
			if err != nil {
				return nil, &tuner.InputError{Err: err}
			}
			v, ok := f.(backend.Verifier)
			if !ok {
				return nil, fmt.Errorf("backend.kind %s: promotion is not supported", s.Backend.Kind)
			}
			return v.Verify(config, dir, a.stderr, check)
		}
		o, err := a.embeddedOptions(s)
		if err != nil {
			return nil, err
		}
		o.Redact = nil // the promotion's own output is already redacted
		return embedded.Verify(o, config, dir, a.stderr, check)
	}
}

// productionConfig returns how the embedded kind installs a trial's
// recorded engine config as the production config (embedded.Portable):
// the corpus and cache paths the user wrote relative become relative to
// the production config's directory, and the tuner's own index cache is
// left out. Other kinds install the recorded bytes as they are (nil).
func productionConfig(s *settings) func([]byte) ([]byte, error) {
	if s.Backend.Kind != kindEmbedded {
		return nil
	}
	var relative []string
	for _, key := range embedded.PathKeys {
		if p, ok := userPath(s, key); ok && p != "" && !filepath.IsAbs(p) {
			relative = append(relative, key)
		}
	}
	return func(config []byte) ([]byte, error) {
		return embedded.Portable(config, s.Backend.Config, relative, userCachePath("engine"))
	}
}

// userPath is the path the user wrote for the engine config key (dotted),
// from where the embedded kind takes it: backend.engine over
// backend.config's file, over dataset.corpus for corpus.path. ok is false
// when the user wrote none. A relative path is returned as written (the
// settings resolved it: see resolvePaths).
func userPath(s *settings, key string) (string, bool) {
	written := func(settingsKey, v string) string {
		if raw, ok := s.written[settingsKey]; ok {
			return raw
		}
		return v
	}
	if p, ok := lookupString(s.Backend.Engine, key); ok {
		return written("backend.engine."+key, p), true
	}
	if s.Backend.Config != "" {
		if data, err := os.ReadFile(s.Backend.Config); err == nil {
			if m, err := render.ReadYAMLMap(data); err == nil {
				if p, ok := lookupString(m, key); ok {
					return p, true
				}
			}
		}
	}
	if key == "corpus.path" && s.Dataset.Corpus != "" {
		return written("dataset.corpus", s.Dataset.Corpus), true
	}
	return "", false
}

// lookupString returns the string at the dotted key of nested maps m.
func lookupString(m map[string]any, key string) (string, bool) {
	if m == nil {
		return "", false
	}
	parts := strings.Split(key, ".")
	for _, k := range parts[:len(parts)-1] {
		next, ok := m[k].(map[string]any)
		if !ok {
			return "", false
		}
		m = next
	}
	v, ok := m[parts[len(parts)-1]].(string)
	return v, ok
}
