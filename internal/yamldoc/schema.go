package yamldoc

import (
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/fusiontune/fusiontune/internal/plainnum"
	"github.com/fusiontune/fusiontune/internal/secrets"
	"github.com/fusiontune/fusiontune/internal/suggest"
	"gopkg.in/yaml.v3"
)

// Schema checks a YAML document against the Go type it decodes into,
// before any decoder sees it: every key known, every value of its field's
// type. Numbers are strict: an integer field takes a plain decimal integer
// within range (not 2.5, which yaml.v3 truncates to 2, nor 1e999), a
// floating-point field a plain finite number (not .nan, .inf or 1e999). A
// key that looks secret but is no field (api_key) is refused with a pointer
// to the environment variable that should hold it. Every reader of a YAML
// file that decodes into a struct (settings, engine configs) checks it
// through a Schema, so one value is accepted or refused alike in every file.
type Schema struct {
	// Tag is the struct tag naming keys: "yaml" or "mapstructure".
	Tag string
	// Env is set when the value checked is an environment variable's
	// text: a boolean may then be any strconv.ParseBool spelling (1, t,
	// TRUE...); in a file it must be a YAML boolean (true or false).
	Env bool
	// Sub, when set, may name another type (and tag) to check the value
	// at field against, instead of the field's own (a map of engine keys
	// checked as an engine config).
	Sub func(field, tag string) (reflect.Type, string, bool)
	// Seen, when set, is told of every value node walked and, for a
	// mapping's entries, their key node (nil for the root and list items).
	Seen func(field string, value, key *yaml.Node)
}

// SchemaProblem is one value a Schema refused: the node, its dotted field
// ("eval.concurrency", "retrievers[1]") and what was expected.
type SchemaProblem struct {
	Node  *yaml.Node
	Field string
	Msg   string
}

var durationType = reflect.TypeFor[time.Duration]()

// Check walks n against type t at field ("" for a document's root) and
// returns every problem, in document order.
func (s Schema) Check(n *yaml.Node, t reflect.Type, field string) []SchemaProblem {
	c := &schemaWalk{s: s}
	c.walk(n, nil, t, field, s.Tag)
	return c.problems
}

type schemaWalk struct {
	s        Schema
	problems []SchemaProblem
}

func (c *schemaWalk) add(n *yaml.Node, field, format string, args ...any) {
	c.problems = append(c.problems, SchemaProblem{Node: n, Field: field, Msg: fmt.Sprintf(format, args...)})
}

// walk checks node n (whose key node is k, nil for none) against type t
// at field; tag names the keys of t's structs.
func (c *schemaWalk) walk(n, k *yaml.Node, t reflect.Type, field, tag string) {
	if c.s.Seen != nil {
		c.s.Seen(field, n, k)
	}
	if n.Kind == yaml.AliasNode {
		return // an alias (possibly recursive) is left to the decoder
	}
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return // "key:" with no value leaves the setting unset
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if c.s.Sub != nil {
		if st, stag, ok := c.s.Sub(field, tag); ok {
			t, tag = st, stag
		}
	}
	if t == durationType {
		c.scalar(n, field, "a duration such as \"30s\" or \"2m\"", func(v string) bool {
			_, err := time.ParseDuration(v)
			return err == nil || v == "0"
		})
		return
	}
	if tag == "yaml" && reflect.PointerTo(t).Implements(reflect.TypeFor[yaml.Unmarshaler]()) {
		return // decodes itself
	}
	switch t.Kind() {
	case reflect.Struct:
		c.mapping(n, t, field, tag)
	case reflect.Map:
		if n.Kind != yaml.MappingNode {
			c.add(n, field, "want a mapping of keys to values (got %s)", Describe(n))
			return
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			key := JoinKey(field, k.Value)
			if t.Elem().Kind() == reflect.Interface {
				if c.s.Seen != nil {
					c.s.Seen(key, v, k)
				}
				continue
			}
			c.walk(v, k, t.Elem(), key, tag)
		}
	case reflect.Slice:
		if n.Kind == yaml.ScalarNode && t.Elem().Kind() == reflect.String {
			return // one value for a list of one, as viper reads it
		}
		if n.Kind != yaml.SequenceNode {
			c.add(n, field, "want a list (got %s)", Describe(n))
			return
		}
		for i, e := range n.Content {
			c.walk(e, nil, t.Elem(), fmt.Sprintf("%s[%d]", field, i), tag)
		}
	case reflect.String:
		c.scalar(n, field, "a string", func(string) bool { return true })
	case reflect.Int, reflect.Int64, reflect.Int32:
		c.scalar(n, field, "an integer", func(v string) bool { _, ok := plainnum.Int(v); return ok })
	case reflect.Float64, reflect.Float32:
		c.scalar(n, field, "a finite number", func(v string) bool {
			_, ok := plainnum.Float(v)
			return ok
		})
	case reflect.Bool:
		if c.s.Env {
			c.scalar(n, field, "a boolean (true, false, 1 or 0)", func(v string) bool { _, err := strconv.ParseBool(v); return err == nil })
			return
		}
		c.scalar(n, field, "true or false", func(string) bool { return n.Tag == "!!bool" })
	}
}

// scalar checks that n is a scalar that ok accepts.
func (c *schemaWalk) scalar(n *yaml.Node, field, want string, ok func(string) bool) {
	if n.Kind != yaml.ScalarNode || !ok(n.Value) {
		c.add(n, field, "want %s (got %s)", want, Describe(n))
	}
}

// mapping checks a mapping against struct t: every key known, every value
// of the right type.
func (c *schemaWalk) mapping(n *yaml.Node, t reflect.Type, field, tag string) {
	if n.Kind != yaml.MappingNode {
		c.add(n, field, "want a mapping of keys to values (got %s)", Describe(n))
		return
	}
	fields := StructKeys(t, tag)
	names := make([]string, 0, len(fields))
	for name := range fields {
		names = append(names, name)
	}
	sort.Strings(names)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Value == "<<" && k.Tag == "!!merge" {
			continue // a merge of an anchored mapping, left to the decoder
		}
		key := JoinKey(field, k.Value)
		ft, ok := fields[strings.ToLower(k.Value)]
		if !ok && tag == "yaml" && secrets.IsKey(k.Value) {
			c.add(k, key, "secrets are read only from environment variables: name the variable with %s_env (e.g. api_key_env: OPENAI_API_KEY)", k.Value)
			continue
		}
		if !ok {
			c.add(k, key, "%s", unknownKey(k.Value, names))
			continue
		}
		c.walk(v, k, ft, key, tag)
	}
}

// unknownKey explains an unknown key: the likely intended one, or every
// valid one.
func unknownKey(key string, valid []string) string {
	if s := suggest.Closest(key, valid); s != "" {
		return fmt.Sprintf("unknown key %q (did you mean %q?)", key, s)
	}
	return fmt.Sprintf("unknown key %q (expected one of: %s)", key, strings.Join(valid, ", "))
}

// StructKeys maps the keys of struct t (by tag, lowercased) to their
// types; inline and squashed fields contribute their own keys.
func StructKeys(t reflect.Type, tag string) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, opts, _ := strings.Cut(f.Tag.Get(tag), ",")
		if name == "-" {
			continue
		}
		if strings.Contains(opts, "inline") || strings.Contains(opts, "squash") {
			for k, v := range StructKeys(f.Type, tag) {
				out[k] = v
			}
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[strings.ToLower(name)] = f.Type
	}
	return out
}

// JoinKey appends key to the dotted path parent.
func JoinKey(parent, key string) string {
	if parent == "" {
		return key
	}
	return parent + "." + key
}
