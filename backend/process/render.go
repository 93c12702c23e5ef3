package process

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"
)

// YAMLOverlay returns a Renderer that writes base with each dotted
// parameter set at its path ("fusion.weights.bm25": 0.6 sets
// fusion: {weights: {bm25: 0.6}}). Values are encoded by yaml.v3, so a
// hostile string stays one quoted scalar. Keys are sorted: the same params
// give the same bytes. Parameters starting with a prefix in skip are left
// out (for example "custom." for a backend that has no such keys).
func YAMLOverlay(base map[string]any, skip ...string) Renderer {
	return func(params map[string]any) ([]byte, error) {
		m := deepCopy(base)
		keys := make([]string, 0, len(params))
		for k := range params {
			keys = append(keys, k)
		}
		sort.Strings(keys)
	next:
		for _, k := range keys {
			for _, s := range skip {
				if strings.HasPrefix(k, s) {
					continue next
				}
			}
			if err := setPath(m, strings.Split(k, "."), params[k]); err != nil {
				return nil, fmt.Errorf("parameter %q: %w", k, err)
			}
		}
		return yaml.Marshal(m)
	}
}

func setPath(m map[string]any, path []string, v any) error {
	for i, p := range path[:len(path)-1] {
		next, ok := m[p]
		if !ok || next == nil {
			child := map[string]any{}
			m[p] = child
			m = child
			continue
		}
		child, ok := next.(map[string]any)
		if !ok {
			return fmt.Errorf("%s is not an object in the base config", strings.Join(path[:i+1], "."))
		}
		m = child
	}
	m[path[len(path)-1]] = v
	return nil
}

func deepCopy(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		switch x := v.(type) {
		case map[string]any:
			out[k] = deepCopy(x)
		case []any:
			out[k] = append([]any(nil), x...)
		default:
			out[k] = v
		}
	}
	return out
}

// ReadYAMLMap decodes a YAML config into a generic map (nil data gives an
// empty map).
func ReadYAMLMap(data []byte) (map[string]any, error) {
	m := map[string]any{}
	if err := yaml.Unmarshal(data, &m); err != nil {
		return nil, err
	}
	if m == nil {
		m = map[string]any{}
	}
	return m, nil
}

// AbsPaths rewrites the string values at the given dotted paths of m to
// absolute paths resolved against dir, so a config rendered elsewhere still
// finds its files.
func AbsPaths(m map[string]any, dir string, paths ...string) {
	for _, p := range paths {
		parts := strings.Split(p, ".")
		cur := m
		for _, k := range parts[:len(parts)-1] {
			next, ok := cur[k].(map[string]any)
			if !ok {
				cur = nil
				break
			}
			cur = next
		}
		if cur == nil {
			continue
		}
		last := parts[len(parts)-1]
		if s, ok := cur[last].(string); ok && s != "" && !filepath.IsAbs(s) {
			cur[last] = filepath.Join(dir, s)
		}
	}
}
