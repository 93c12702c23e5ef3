package render

import (
	"fmt"
	"math"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"sync"

	"gopkg.in/yaml.v3"
)

// YAMLOverlay returns a Func that writes base with each dotted
// parameter set at its path ("fusion.weights.bm25": 0.6 sets
// fusion: {weights: {bm25: 0.6}}). Values are encoded by yaml.v3, so a
// hostile string stays one quoted scalar. Keys are sorted: the same params
// give the same bytes. Parameters starting with a prefix in skip are left
// out (for example "custom." for a backend that has no such keys).
func YAMLOverlay(base map[string]any, skip ...string) Func {
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
		return marshalYAML(m)
	}
}

// marshalYAML encodes v like yaml.Marshal, but writes every string holding
// a line break or another control character double-quoted with escapes:
// yaml.v3's block style drops leading line breaks (a value "\nx" came back
// as "x", "\n\n" as "\n", and in a list the document did not parse). The
// node tree is built here because yaml.Node.Encode itself goes through that
// emitter.
func marshalYAML(v any) ([]byte, error) {
	n, err := toNode(v)
	if err != nil {
		return nil, err
	}
	return yaml.Marshal(n)
}

func toNode(v any) (*yaml.Node, error) {
	switch x := v.(type) {
	case string:
		if hasControl(x) {
			return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: x, Style: yaml.DoubleQuotedStyle}, nil
		}
		// Otherwise yaml.v3 decides, as yaml.Marshal would (it quotes
		// "true", "0x1F", "n" and the like).
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		for _, k := range keys {
			kn, _ := toNode(k)
			vn, err := toNode(x[k])
			if err != nil {
				return nil, err
			}
			n.Content = append(n.Content, kn, vn)
		}
		return n, nil
	case []string:
		l := make([]any, len(x))
		for i, e := range x {
			l[i] = e
		}
		return toNode(l)
	case []any:
		n := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
		for _, e := range x {
			en, err := toNode(e)
			if err != nil {
				return nil, err
			}
			n.Content = append(n.Content, en)
		}
		return n, nil
	}
	// Numbers, booleans, null, strings without control characters:
	// yaml.v3's own encoding, which has nothing to mangle.
	return scalars.node(v)
}

// scalarMemo keeps yaml.v3's node for each scalar value encoded: Node.Encode
// writes the value as a document and parses it back (about 80 µs and 15
// allocations of 8 KB buffers each time), and a config's scalars repeat
// from render to render (the base config's in every one). Keys are the
// value's type and bits, so 0.0 and -0.0 stay apart and NaN is found.
type scalarMemo struct {
	mu    sync.Mutex
	nodes map[scalarKey]yaml.Node
}

type scalarKey struct {
	kind reflect.Kind
	s    string
	bits uint64
}

// maxScalars bounds the memo (emptied when full): a sweep's configs hold a
// few hundred distinct scalars.
const maxScalars = 1 << 14

var scalars = &scalarMemo{nodes: map[scalarKey]yaml.Node{}}

// node returns a copy of yaml.v3's node for v (Node.Encode's), from the
// memo when v is a string, bool, integer or float seen before.
func (m *scalarMemo) node(v any) (*yaml.Node, error) {
	key, ok := keyOf(v)
	if ok {
		m.mu.Lock()
		n, hit := m.nodes[key]
		m.mu.Unlock()
		if hit {
			return &n, nil
		}
	}
	var n yaml.Node
	if err := n.Encode(v); err != nil {
		return nil, err
	}
	if ok && n.Kind == yaml.ScalarNode && len(n.Content) == 0 {
		m.mu.Lock()
		if len(m.nodes) >= maxScalars {
			clear(m.nodes)
		}
		m.nodes[key] = n
		m.mu.Unlock()
	}
	c := n
	return &c, nil
}

// keyOf is v's memo key; false for a value of another type (encoded every
// time).
func keyOf(v any) (scalarKey, bool) {
	switch x := v.(type) {
	case nil:
		return scalarKey{kind: reflect.Invalid}, true
	case string:
		return scalarKey{kind: reflect.String, s: x}, true
	case bool:
		if x {
			return scalarKey{kind: reflect.Bool, bits: 1}, true
		}
		return scalarKey{kind: reflect.Bool}, true
	case int:
		return scalarKey{kind: reflect.Int, bits: uint64(x)}, true
	case int64:
		return scalarKey{kind: reflect.Int64, bits: uint64(x)}, true
	case float64:
		return scalarKey{kind: reflect.Float64, bits: math.Float64bits(x)}, true
	}
	return scalarKey{}, false
}

func hasControl(s string) bool {
	for _, r := range s {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f) || r == 0x2028 || r == 0x2029 || r == 0xfeff {
			return true
		}
	}
	return false
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

// RelPaths is AbsPaths' inverse: it rewrites the absolute string values at
// the given dotted paths of m relative to dir (values that cannot be made
// relative, such as another volume's, stay as they are).
func RelPaths(m map[string]any, dir string, paths ...string) {
	for _, p := range paths {
		cur, last := parent(m, p)
		if cur == nil {
			continue
		}
		if s, ok := cur[last].(string); ok && filepath.IsAbs(s) {
			if rel, err := filepath.Rel(dir, s); err == nil {
				cur[last] = rel
			}
		}
	}
}

// parent returns the map holding the dotted path p in m and p's last key
// (nil when a map on the way is missing).
func parent(m map[string]any, p string) (map[string]any, string) {
	parts := strings.Split(p, ".")
	cur := m
	for _, k := range parts[:len(parts)-1] {
		next, ok := cur[k].(map[string]any)
		if !ok {
			return nil, ""
		}
		cur = next
	}
	return cur, parts[len(parts)-1]
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
