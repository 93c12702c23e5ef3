package settings

import (
	"errors"
	"fmt"
	"os"
	"reflect"
	"strings"

	"github.com/fusiontune/fusiontune/internal/userfile"
	"github.com/fusiontune/fusiontune/internal/yamldoc"

	"github.com/fusiontune/fusiontune/backend/engine"
	"github.com/fusiontune/fusiontune/experiments"
	"gopkg.in/yaml.v3"
)

// Source records where every setting came from, so that a problem
// names its place: the settings file's line and column, the environment
// variable or the flag. viper merges the values; this keeps the positions
// viper drops.
type Source struct {
	file string
	// nodes maps a key path ("eval.concurrency", "datasets[1].path"),
	// lowercased as viper keys are, to the value's node in the file; keys
	// to the key's node.
	nodes, keys map[string]*yaml.Node
	env         map[string]string // key path -> the FUSIONTUNE_* variable that set it
	flags       map[string]string // key path -> the flag that set it
}

// InFile reports whether key was set by the settings file (and not
// overridden by the environment or a flag).
func (src *Source) InFile(key string) bool {
	if src == nil {
		return false
	}
	key = strings.ToLower(key)
	if _, ok := src.flags[key]; ok {
		return false
	}
	if _, ok := src.env[key]; ok {
		return false
	}
	_, ok := src.nodes[key]
	return ok
}

// Where names the place a setting came from: "--flag", the environment
// variable, "file:line:col", the file, or "settings" for a default. field
// may be longer than a key the source knows (backend.search.hits.x): the
// longest known prefix answers.
func (src *Source) Where(field string) string {
	if src == nil {
		return "settings"
	}
	key := strings.ToLower(field)
	if f, ok := src.flags[key]; ok {
		return "--" + f
	}
	if e, ok := src.env[key]; ok {
		return e
	}
	for k := key; k != ""; k = parentKey(k) {
		if n, ok := src.nodes[k]; ok {
			return fmt.Sprintf("%s:%d:%d", src.file, n.Line, n.Column)
		}
	}
	if src.file != "" {
		return src.file
	}
	return "settings"
}

// parentKey drops the last element of a key path: "a.b[2]" -> "a.b",
// "a.b" -> "a", "a" -> "".
func parentKey(k string) string {
	i := strings.LastIndexAny(k, ".[")
	if i < 0 {
		return ""
	}
	return k[:i]
}

// Problem is a settings problem at field, placed by its source.
func (src *Source) Problem(field, format string, args ...any) experiments.Problem {
	return experiments.Problem{Pos: src.Where(field), Field: field, Msg: fmt.Sprintf(format, args...)}
}

// readFile decodes the settings file with positions and checks its
// keys and the types of its values against the settings struct t, listing
// every problem at once: an unknown key with the valid keys or a did-you-
// mean, a value of the wrong type with what was expected.
func readFile(file string, t reflect.Type) (*Source, experiments.Problems) {
	src := &Source{file: file, nodes: map[string]*yaml.Node{}, keys: map[string]*yaml.Node{}, env: map[string]string{}, flags: map[string]string{}}
	if file == "" {
		return src, nil
	}
	data, err := userfile.Read(file, userfile.Default)
	if err != nil {
		return src, experiments.Problems{{Pos: file, Msg: fmt.Sprintf("read settings: %v", err)}}
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return src, experiments.Problems{yamlSyntax(file, err)}
	}
	if line := yamldoc.Extra(data); line > 0 {
		return src, experiments.Problems{{Pos: fmt.Sprintf("%s:%d", file, line), Msg: "a second YAML document: the file must hold one (remove the \"---\" and what follows it, or merge it into the first)"}}
	}
	if len(doc.Content) == 0 {
		return src, nil // an empty file sets nothing
	}
	c := &schemaCheck{src: src}
	c.walk(doc.Content[0], t, "", "mapstructure")
	return src, c.problems
}

// yamlSyntax turns a yaml.v3 syntax error into a problem at its line.
func yamlSyntax(file string, err error) experiments.Problem {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	p := experiments.Problem{Pos: file, Msg: "syntax error: " + msg}
	var line int
	if _, scanErr := fmt.Sscanf(msg, "line %d:", &line); scanErr == nil {
		p.Pos = fmt.Sprintf("%s:%d", file, line)
		p.Msg = "syntax error:" + strings.SplitN(msg, ":", 2)[1]
	}
	return p
}

// schemaCheck walks a settings document against the settings types
// (yamldoc.Schema), recording every node's position in src.
type schemaCheck struct {
	src      *Source
	problems experiments.Problems
	// env is set when the value checked is an environment variable's
	// text (yamldoc.Schema.Env).
	env bool
}

// engineKeys checks the embedded engine's own keys (backend.engine) by
// name and type against its config (their values' ranges are checked
// when the engine config is built).
func engineKeys(field, tag string) (reflect.Type, string, bool) {
	if field == "backend.engine" && tag == "mapstructure" {
		return reflect.TypeFor[engine.Config](), "yaml", true
	}
	return nil, "", false
}

// walk checks node n against type t at field (a key path); tag is the
// struct tag naming keys (mapstructure for tune's settings, yaml inside
// backend.engine).
func (c *schemaCheck) walk(n *yaml.Node, t reflect.Type, field, tag string) {
	seen := func(field string, value, key *yaml.Node) {
		c.src.nodes[strings.ToLower(field)] = value
		if key != nil {
			c.src.keys[strings.ToLower(field)] = key
		}
	}
	s := yamldoc.Schema{Tag: tag, Env: c.env, Sub: engineKeys, Seen: seen}
	for _, p := range s.Check(n, t, field) {
		pos := c.src.file
		if p.Node != nil && p.Node.Line > 0 {
			pos = fmt.Sprintf("%s:%d:%d", c.src.file, p.Node.Line, p.Node.Column)
		}
		c.problems = append(c.problems, experiments.Problem{Pos: pos, Field: p.Field, Msg: p.Msg})
	}
}

// structKeys maps the keys of struct t (by tag, lowercased) to their
// types (yamldoc.StructKeys).
func structKeys(t reflect.Type, tag string) map[string]reflect.Type {
	return yamldoc.StructKeys(t, tag)
}

// checkEnv checks the FUSIONTUNE_* variables that set a setting, each
// against the type of its setting, and records them as the source of that
// setting. A problem names the variable, not the settings file.
func checkEnv(src *Source, keys []string, root reflect.Type) experiments.Problems {
	var out experiments.Problems
	for _, key := range keys {
		name := EnvPrefix + "_" + strings.ToUpper(strings.ReplaceAll(key, ".", "_"))
		v, ok := os.LookupEnv(name)
		if !ok || v == "" {
			continue
		}
		src.env[key] = name
		t, ok := keyType(root, key)
		if !ok {
			continue
		}
		c := &schemaCheck{src: &Source{file: name, nodes: map[string]*yaml.Node{}, keys: map[string]*yaml.Node{}}, env: true}
		c.walk(&yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: v}, t, key, "mapstructure")
		for _, p := range c.problems {
			p.Pos = name
			out = append(out, p)
		}
	}
	return out
}

// keyType is the type of the setting at a dotted key path of t.
func keyType(t reflect.Type, key string) (reflect.Type, bool) {
	for _, part := range strings.Split(key, ".") {
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct {
			return nil, false
		}
		ft, ok := structKeys(t, "mapstructure")[part]
		if !ok {
			return nil, false
		}
		t = ft
	}
	return t, true
}

// Place puts the settings' positions into an error about them that was
// worded without (the backend factory's): each problem of an engine
// config error whose field the settings' backend.engine holds, or an
// error starting with a setting's name ("backend.config: ...",
// "backend.engine dense.base_url: ...").
func (src *Source) Place(err error) error {
	var ce *engine.ConfigError
	if errors.As(err, &ce) {
		var out experiments.Problems
		for _, p := range ce.Problems {
			key := "backend.engine." + p.Field
			if _, ok := src.nodes[strings.ToLower(key)]; ok {
				out = append(out, src.Problem(key, "%s", p.Problem))
				continue
			}
			pos := ce.File
			if p.Line > 0 {
				pos = fmt.Sprintf("%s:%d:%d", ce.File, p.Line, p.Column)
			}
			out = append(out, experiments.Problem{Pos: pos, Field: p.Field, Msg: p.Problem})
		}
		SortByPosition(out)
		return out
	}
	text := err.Error()
	field, msg, ok := strings.Cut(text, ": ")
	if !ok || strings.Contains(text, "\n") {
		return err
	}
	field = strings.Replace(field, "backend.engine ", "backend.engine.", 1)
	if strings.ContainsAny(field, " \"") || !strings.HasPrefix(field, "backend.") {
		return err
	}
	if w := src.Where(field); w != "settings" {
		return fmt.Errorf("%s: %s: %s", w, field, msg)
	}
	return err
}
