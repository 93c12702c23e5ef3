package settings

import (
	"os"
	"path/filepath"

	"github.com/fusiontune/fusiontune/backend/embedded"
	"github.com/fusiontune/fusiontune/backend/render"
	"github.com/fusiontune/fusiontune/backend/weaviate"
)

// ProductionConfig returns how the embedded kind installs a trial's
// recorded engine config as the production config (embedded.Portable):
// the corpus and cache paths the user wrote relative become relative to
// the production config's directory, and the tuner's own index cache
// (cacheDir) is left out. The weaviate kind installs weaviate.ProductionFile
// (the trial's settings with the production class). Other kinds install
// the recorded bytes as they are (nil).
func (s *Settings) ProductionConfig(cacheDir string) func([]byte) ([]byte, error) {
	if s.Backend.Kind == KindWeaviate {
		prefix := s.Backend.Weaviate.ClassPrefix
		return func(config []byte) ([]byte, error) { return weaviate.ProductionFile(config, prefix) }
	}
	if s.Backend.Kind != KindEmbedded {
		return nil
	}
	var relative []string
	for _, key := range embedded.PathKeys {
		if p, ok := s.userPath(key); ok && p != "" && !filepath.IsAbs(p) {
			relative = append(relative, key)
		}
	}
	return func(config []byte) ([]byte, error) {
		return embedded.Portable(config, s.Backend.Config, relative, cacheDir)
	}
}

// userPath is the path the user wrote for the engine config key (dotted),
// from where the embedded kind takes it: backend.engine over
// backend.config's file, over dataset.corpus for corpus.path. ok is false
// when the user wrote none. A relative path is returned as written (see
// ResolvePaths).
func (s *Settings) userPath(key string) (string, bool) {
	written := func(settingsKey, v string) string {
		if raw, ok := s.Written[settingsKey]; ok {
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
	m, last := engineLeaf(m, key)
	v, ok := m[last].(string)
	return v, ok
}
