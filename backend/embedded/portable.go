package embedded

import (
	"fmt"
	"path/filepath"

	"github.com/fusiontune/fusiontune/backend/render"
)

// PathKeys are the engine config keys that hold file paths. The engine
// resolves a relative one against its config file's directory
// (engine.LoadConfig); a trial's rendered config holds them absolute.
var PathKeys = []string{"corpus.path", "cache_dir"}

// Portable returns config, a trial's engine config as rendered (its paths
// absolute), as it is installed at path, the production config: each key of
// relative (among PathKeys: the paths the user wrote relative) is rewritten
// relative to path's directory, so the file names the same files from any
// checkout, and cache_dir is left out when it is dropCache (the tuner's
// own cache under the user's cache directory, which is machine-specific:
// the engine then keeps its index in engine.DefaultCacheDir beside the
// config).
func Portable(config []byte, path string, relative []string, dropCache string) ([]byte, error) {
	m, err := render.ReadYAMLMap(config)
	if err != nil {
		return nil, fmt.Errorf("production config: %w", err)
	}
	if c, ok := m["cache_dir"].(string); ok && dropCache != "" && filepath.Clean(c) == filepath.Clean(dropCache) {
		delete(m, "cache_dir")
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	render.RelPaths(m, filepath.Dir(abs), relative...)
	return render.YAMLOverlay(m)(nil)
}
