package settings

import (
	"path/filepath"
	"reflect"
	"strings"

	"github.com/fusiontune/fusiontune/internal/suggest"
	"github.com/fusiontune/fusiontune/internal/userfile"
	"gopkg.in/yaml.v3"
)

// IsFile reports whether path is a settings file (root: the settings
// struct): named tune.yaml
// (or tune.yml), or a YAML file without a golden set's queries whose top
// level has a settings key or a near miss of one (so that a file of typos
// is still checked as settings).
func IsFile(path string, root reflect.Type) bool {
	switch strings.ToLower(filepath.Base(path)) {
	case "tune.yaml", "tune.yml":
		return true
	}
	switch strings.ToLower(filepath.Ext(path)) {
	case ".yaml", ".yml":
	default:
		return false
	}
	data, err := userfile.Read(path, userfile.Default)
	if err != nil {
		return false
	}
	var top map[string]any
	if yaml.Unmarshal(data, &top) != nil || len(top) == 0 {
		return false
	}
	if _, ok := top["queries"]; ok {
		return false // a golden set
	}
	keys := structKeys(root, "mapstructure")
	names := make([]string, 0, len(keys))
	for k := range keys {
		names = append(names, k)
	}
	for k := range top {
		if _, ok := keys[strings.ToLower(k)]; ok || suggest.Closest(k, names) != "" {
			return true // a settings key, or a typo of one
		}
	}
	return false
}
