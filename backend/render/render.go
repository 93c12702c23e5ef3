package render

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"path/filepath"
	"sort"
	"strings"
	"text/template"

	"gopkg.in/yaml.v3"
)

// Format is the syntax a template renders: values are encoded for it and
// the output is checked against it.
type Format string

// The formats a template can render.
const (
	YAML Format = "yaml"
	JSON Format = "json"
	// URL encodes values for a URL query (url.QueryEscape); the output is
	// not parsed back.
	URL Format = "url"
)

// ErrUnknownFormat is returned by FormatOf for a file name without a
// known extension.
var ErrUnknownFormat = errors.New("unknown config format")

// FormatOf returns the format of a file by its extension (.yaml, .yml,
// .json), looking through a trailing .tmpl or .tpl.
func FormatOf(path string) (Format, error) {
	p := strings.TrimSuffix(strings.TrimSuffix(path, ".tmpl"), ".tpl")
	switch strings.ToLower(filepath.Ext(p)) {
	case ".yaml", ".yml":
		return YAML, nil
	case ".json":
		return JSON, nil
	}
	return "", fmt.Errorf("%w: %q: want a .yaml, .yml or .json file", ErrUnknownFormat, filepath.Base(path))
}

// Template is a parsed template for one format. It is safe for concurrent
// use.
type Template struct {
	name   string
	format Format
	t      *template.Template
}

// Parse parses text (named name in errors) as a template rendering format f.
func Parse(name, text string, f Format) (*Template, error) {
	switch f {
	case YAML, JSON, URL:
	default:
		return nil, fmt.Errorf("template %s: format %q: want yaml, json or url", name, f)
	}
	t := template.New(name).Option("missingkey=error").Funcs(template.FuncMap{
		"param": func(string, ...any) (any, error) { return nil, errors.New("param: no data") },
		"has":   func(string) bool { return false },
		"is":    is,
		"abs":   func(string) (Value, error) { return Value{}, errors.New("abs: no data") },
	})
	if _, err := t.Parse(text); err != nil {
		return nil, trimPrefix(err)
	}
	return &Template{name: name, format: f, t: t}, nil
}

// Name returns the template's name.
func (t *Template) Name() string { return t.name }

// Format returns the format the template renders.
func (t *Template) Format() Format { return t.format }

// Execute renders the template with params (dotted names such as
// "fusion.k", or plain names such as "query") and checks that the result
// parses as the template's format.
func (t *Template) Execute(params map[string]any) ([]byte, error) {
	root, err := buildTree(params, t.format)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", t.name, err)
	}
	c, err := t.t.Clone()
	if err != nil {
		return nil, err
	}
	c.Funcs(template.FuncMap{
		"param": func(name string, def ...any) (any, error) { return root.param(params, name, def, t.format) },
		"has":   func(name string) bool { _, ok := root.lookup(params, name); return ok },
		"abs": func(path string) (Value, error) {
			p, err := filepath.Abs(path)
			if err != nil {
				return Value{}, err
			}
			return newValue(p, t.format)
		},
	})
	var b bytes.Buffer
	if err := c.Execute(&b, root); err != nil {
		return nil, trimPrefix(err)
	}
	out := b.Bytes()
	if err := check(out, t.format); err != nil {
		return nil, fmt.Errorf("%s: the rendered %s does not parse: %w", t.name, t.format, err)
	}
	return out, nil
}

// templateError drops text/template's "template: " prefix, so errors read
// "NAME:LINE:COL: ..." like every other input error.
type templateError struct{ err error }

func (e templateError) Error() string { return strings.TrimPrefix(e.err.Error(), "template: ") }
func (e templateError) Unwrap() error { return e.err }

func trimPrefix(err error) error { return templateError{err} }

// check parses out as format f.
func check(out []byte, f Format) error {
	switch f {
	case YAML:
		var v any
		return yaml.Unmarshal(out, &v)
	case JSON:
		dec := json.NewDecoder(bytes.NewReader(out))
		var v any
		if err := dec.Decode(&v); err != nil {
			return err
		}
		if _, err := dec.Token(); err != io.EOF {
			return errors.New("data after the top-level value")
		}
	}
	return nil
}

// Value is a parameter as a template sees it: printed (by any verb, any
// function) it gives its literal already encoded for the target format, so
// no raw string reaches the output.
type Value struct {
	lit string
	raw any
	f   Format
}

// String returns the encoded literal.
func (v Value) String() string { return v.lit }

// Format implements fmt.Formatter: every verb prints the encoded literal.
func (v Value) Format(s fmt.State, _ rune) { io.WriteString(s, v.lit) }

// tree holds parameters nested by their dotted names; printed whole it is a
// flow mapping of its encoded values.
type tree map[string]any

// String returns the tree as an encoded flow mapping.
func (t tree) String() string {
	lit, err := encode(t.raw(), t.format())
	if err != nil {
		return "null"
	}
	return lit
}

// Format implements fmt.Formatter like Value.Format.
func (t tree) Format(s fmt.State, _ rune) { io.WriteString(s, t.String()) }

func (t tree) raw() map[string]any {
	out := make(map[string]any, len(t))
	for k, v := range t {
		switch x := v.(type) {
		case Value:
			out[k] = x.raw
		case tree:
			out[k] = x.raw()
		}
	}
	return out
}

// format finds the format a leaf was encoded for (trees are built from
// leaves, so one exists).
func (t tree) format() Format {
	for _, v := range t {
		switch x := v.(type) {
		case tree:
			if f := x.format(); f != "" {
				return f
			}
		case Value:
			return x.f
		}
	}
	return ""
}

func buildTree(params map[string]any, f Format) (tree, error) {
	root := tree{}
	keys := make([]string, 0, len(params))
	for k := range params {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v, err := newValue(params[k], f)
		if err != nil {
			return nil, fmt.Errorf("parameter %q: %w", k, err)
		}
		parts := strings.Split(k, ".")
		cur := root
		for i, p := range parts[:len(parts)-1] {
			next, ok := cur[p]
			if !ok {
				child := tree{}
				cur[p] = child
				cur = child
				continue
			}
			child, ok := next.(tree)
			if !ok {
				return nil, fmt.Errorf("parameter %q: %s is itself a parameter", k, strings.Join(parts[:i+1], "."))
			}
			cur = child
		}
		last := parts[len(parts)-1]
		if _, dup := cur[last]; dup {
			return nil, fmt.Errorf("parameter %q: also the prefix of other parameters", k)
		}
		cur[last] = v
	}
	return root, nil
}

func newValue(raw any, f Format) (Value, error) {
	lit, err := encode(raw, f)
	if err != nil {
		return Value{}, err
	}
	return Value{lit: lit, raw: raw, f: f}, nil
}

// lookup finds a parameter by dotted name: a leaf from params, or a
// subtree.
func (t tree) lookup(params map[string]any, name string) (any, bool) {
	if _, ok := params[name]; ok {
		cur := any(t)
		for _, p := range strings.Split(name, ".") {
			cur = cur.(tree)[p]
		}
		return cur, true
	}
	cur := t
	for _, p := range strings.Split(name, ".") {
		next, ok := cur[p].(tree)
		if !ok {
			return nil, false
		}
		cur = next
	}
	return cur, true
}

func (t tree) param(params map[string]any, name string, def []any, f Format) (any, error) {
	if v, ok := t.lookup(params, name); ok {
		return v, nil
	}
	switch len(def) {
	case 0:
		return nil, fmt.Errorf("parameter %q is not set (give a default: param %q VALUE)", name, name)
	case 1:
		return newValue(def[0], f)
	}
	return nil, fmt.Errorf("param %q: want at most one default (got %d)", name, len(def))
}

// is reports whether the parameter v equals want (compared as printed by
// fmt, so 60 equals 60.0).
func is(v any, want any) (bool, error) {
	x, ok := v.(Value)
	if !ok {
		return false, fmt.Errorf("is: want a parameter value, got %T", v)
	}
	return fmt.Sprint(x.raw) == fmt.Sprint(want), nil
}

// encode returns v's literal in format f.
func encode(v any, f Format) (string, error) {
	if f == URL {
		if s, ok := v.(string); ok {
			return url.QueryEscape(s), nil
		}
		b, err := json.Marshal(v)
		if err != nil {
			return "", err
		}
		return url.QueryEscape(string(b)), nil
	}
	if s, ok := v.(string); ok && f == YAML {
		return quoteASCII(s), nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	if f == YAML {
		return escapeNonASCII(string(b)), nil
	}
	return string(b), nil
}

// quoteASCII quotes s as a YAML double-quoted scalar in printable ASCII:
// every other character is escaped, so the literal is one token on one
// line whatever s holds.
func quoteASCII(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r >= 0x20 && r <= 0x7e:
			b.WriteRune(r)
		default:
			writeEscape(&b, r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// escapeNonASCII escapes every character of JSON text outside printable
// ASCII. encoding/json leaves only non-ASCII runes and DEL unescaped, and
// only inside strings, so the result is the same value in YAML's flow
// syntax.
func escapeNonASCII(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r >= 0x20 && r <= 0x7e {
			b.WriteRune(r)
			continue
		}
		writeEscape(&b, r)
	}
	return b.String()
}

func writeEscape(b *strings.Builder, r rune) {
	if r > 0xffff {
		fmt.Fprintf(b, `\U%08x`, r)
		return
	}
	fmt.Fprintf(b, `\u%04x`, r)
}
