package experiments

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/fusiontune/fusiontune/internal/suggest"
	"github.com/fusiontune/fusiontune/internal/yamldoc"

	"gopkg.in/yaml.v3"
)

// Both YAML and JSON user files are decoded into yaml.v3 nodes, which carry
// the line and column of every value. JSON goes through encoding/json's
// tokenizer (strict JSON, tabs allowed) and is converted to the same nodes,
// so one walker reports positions and field paths for both.

// lineIndex turns byte offsets into 1-based line and column (in runes).
// It is not safe for concurrent use.
type lineIndex struct {
	data   []byte
	starts []int // byte offset of the start of each line
	base   int   // line number of the first line, minus one
	// The last position asked: the next one further along the same line
	// counts runes from there, so that a file of one long line (minified
	// JSON) is placed in linear time, not quadratic.
	lastLine, lastOff, lastCol int
}

func newLineIndex(data []byte, base int) *lineIndex {
	starts := []int{0}
	for i, c := range data {
		if c == '\n' {
			starts = append(starts, i+1)
		}
	}
	return &lineIndex{data: data, starts: starts, base: base}
}

func (li *lineIndex) pos(off int) (line, col int) {
	off = min(max(off, 0), len(li.data))
	i := sort.Search(len(li.starts), func(i int) bool { return li.starts[i] > off }) - 1
	from, col := li.starts[i], 1
	if li.lastLine == i && li.lastOff >= from && li.lastOff <= off && li.lastCol > 0 {
		from, col = li.lastOff, li.lastCol
	}
	col += utf8.RuneCount(li.data[from:off])
	li.lastLine, li.lastOff, li.lastCol = i, off, col
	return li.base + i + 1, col
}

// parseJSONNode decodes data, which must hold exactly one JSON value, into a
// node tree. base is the number of lines before data in its file (for JSONL).
// A syntax error comes back as a Problem positioned in file.
func parseJSONNode(data []byte, file string, base int) (*yaml.Node, error) {
	li := newLineIndex(data, base)
	if json.Valid(data) {
		// Valid JSON, the usual case, is read directly; anything else goes
		// through the tokenizer below, which words and places the error.
		if n, ok := (&validJSON{data: data, li: li}).value(0); ok {
			return n, nil
		}
	}
	return tokenizeJSONNode(data, li, file)
}

// tokenizeJSONNode is parseJSONNode through encoding/json's tokenizer,
// which words and places every syntax error.
func tokenizeJSONNode(data []byte, li *lineIndex, file string) (*yaml.Node, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	p := &jsonParser{data: data, dec: dec, li: li, file: file}
	n, err := p.value(0)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		off := skipJSONSpace(data, int(dec.InputOffset()))
		return nil, p.problem(off, "invalid JSON: unexpected data after the top-level value")
	}
	return n, nil
}

// maxJSONDepth bounds nesting so hostile input cannot exhaust the stack.
const maxJSONDepth = 100

type jsonParser struct {
	data []byte
	dec  *json.Decoder
	li   *lineIndex
	file string
}

func (p *jsonParser) problem(off int, msg string) error {
	line, col := p.li.pos(off)
	return Problem{Pos: fmt.Sprintf("%s:%d:%d", p.file, line, col), Msg: msg}
}

func (p *jsonParser) tokenErr(err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return p.problem(int(se.Offset), "invalid JSON: "+se.Error())
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return p.problem(len(p.data), "invalid JSON: unexpected end of input")
	}
	return p.problem(int(p.dec.InputOffset()), "invalid JSON: "+err.Error())
}

func (p *jsonParser) token() (json.Token, *yaml.Node, error) {
	start := skipJSONSpace(p.data, int(p.dec.InputOffset()))
	tok, err := p.dec.Token()
	if err != nil {
		return nil, nil, p.tokenErr(err)
	}
	line, col := p.li.pos(start)
	return tok, &yaml.Node{Line: line, Column: col}, nil
}

func (p *jsonParser) value(depth int) (*yaml.Node, error) {
	tok, n, err := p.token()
	if err != nil {
		return nil, err
	}
	return p.fill(tok, n, depth)
}

func (p *jsonParser) fill(tok json.Token, n *yaml.Node, depth int) (*yaml.Node, error) {
	if depth > maxJSONDepth {
		return nil, p.problem(int(p.dec.InputOffset()), "invalid JSON: nested too deeply")
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			n.Kind, n.Tag = yaml.MappingNode, "!!map"
			for p.dec.More() {
				ktok, kn, err := p.token()
				if err != nil {
					return nil, err
				}
				key, _ := ktok.(string)
				kn.Kind, kn.Tag, kn.Value = yaml.ScalarNode, "!!str", key
				v, err := p.value(depth + 1)
				if err != nil {
					return nil, err
				}
				n.Content = append(n.Content, kn, v)
			}
		case '[':
			n.Kind, n.Tag = yaml.SequenceNode, "!!seq"
			for p.dec.More() {
				v, err := p.value(depth + 1)
				if err != nil {
					return nil, err
				}
				n.Content = append(n.Content, v)
			}
		default:
			return nil, p.problem(int(p.dec.InputOffset())-1, fmt.Sprintf("invalid JSON: unexpected %q", string(t)))
		}
		if _, _, err := p.token(); err != nil { // the closing delimiter
			return nil, err
		}
	case string:
		n.Kind, n.Tag, n.Value = yaml.ScalarNode, "!!str", t
	case json.Number:
		n.Kind, n.Tag, n.Value = yaml.ScalarNode, "!!int", t.String()
		if strings.ContainsAny(n.Value, ".eE") {
			n.Tag = "!!float"
		}
	case bool:
		n.Kind, n.Tag, n.Value = yaml.ScalarNode, "!!bool", strconv.FormatBool(t)
	case nil:
		n.Kind, n.Tag, n.Value = yaml.ScalarNode, "!!null", "null"
	}
	return n, nil
}

// validJSON reads a document json.Valid accepts into the node tree the
// tokenizer (jsonParser) makes of it, in one pass, without the
// tokenizer's per-token cost. value reports false for what it leaves to
// the tokenizer (nesting deeper than maxJSONDepth).
type validJSON struct {
	data []byte
	off  int
	li   *lineIndex
}

func (v *validJSON) space() {
	for v.off < len(v.data) {
		switch v.data[v.off] {
		case ' ', '\t', '\r', '\n':
			v.off++
		default:
			return
		}
	}
}

// node is a node positioned at the current offset.
func (v *validJSON) node() *yaml.Node {
	line, col := v.li.pos(v.off)
	return &yaml.Node{Line: line, Column: col}
}

func (v *validJSON) value(depth int) (*yaml.Node, bool) {
	if depth > maxJSONDepth {
		return nil, false
	}
	v.space()
	n := v.node()
	switch c := v.data[v.off]; c {
	case '{', '[':
		close := byte('}')
		n.Kind, n.Tag = yaml.MappingNode, "!!map"
		if c == '[' {
			close = ']'
			n.Kind, n.Tag = yaml.SequenceNode, "!!seq"
		}
		v.off++
		for v.space(); v.data[v.off] != close; v.space() {
			if v.data[v.off] == ',' {
				v.off++
				v.space()
			}
			if c == '{' {
				kn := v.node()
				kn.Kind, kn.Tag, kn.Value = yaml.ScalarNode, "!!str", v.str()
				v.space()
				v.off++ // the colon
				n.Content = append(n.Content, kn)
			}
			e, ok := v.value(depth + 1)
			if !ok {
				return nil, false
			}
			n.Content = append(n.Content, e)
		}
		v.off++
	case '"':
		n.Kind, n.Tag, n.Value = yaml.ScalarNode, "!!str", v.str()
	case 't', 'f':
		n.Kind, n.Tag, n.Value = yaml.ScalarNode, "!!bool", strconv.FormatBool(c == 't')
		v.off += 4
		if c == 'f' {
			v.off++
		}
	case 'n':
		n.Kind, n.Tag, n.Value = yaml.ScalarNode, "!!null", "null"
		v.off += 4
	default:
		start := v.off
		for v.off < len(v.data) && strings.IndexByte("+-0123456789.eE", v.data[v.off]) >= 0 {
			v.off++
		}
		n.Kind, n.Tag, n.Value = yaml.ScalarNode, "!!int", string(v.data[start:v.off])
		if strings.ContainsAny(n.Value, ".eE") {
			n.Tag = "!!float"
		}
	}
	return n, true
}

// str reads the string at the current offset: its bytes when they need no
// decoding, else as encoding/json decodes it (escapes, invalid UTF-8).
func (v *validJSON) str() string {
	start := v.off
	plain := true
	for v.off++; v.data[v.off] != '"'; v.off++ {
		if v.data[v.off] == '\\' {
			plain = false
			v.off++
		}
	}
	v.off++
	lit := v.data[start:v.off]
	if plain && utf8.Valid(lit) {
		return string(lit[1 : len(lit)-1])
	}
	var s string
	_ = json.Unmarshal(lit, &s) // valid: json.Valid accepted the document
	return s
}

func skipJSONSpace(data []byte, off int) int {
	for off < len(data) {
		switch data[off] {
		case ' ', '\t', '\r', '\n', ',', ':':
			off++
		default:
			return off
		}
	}
	return off
}

var yamlLineErr = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// parseYAMLNode decodes data as one YAML document and returns its root node,
// or nil for an empty document.
func parseYAMLNode(data []byte, file string) (*yaml.Node, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		msg := strings.TrimPrefix(err.Error(), "yaml: ")
		pos := file
		if m := yamlLineErr.FindStringSubmatch(err.Error()); m != nil {
			pos, msg = file+":"+m[1], m[2]
		}
		return nil, Problem{Pos: pos, Msg: "invalid YAML: " + msg}
	}
	if line := yamldoc.Extra(data); line > 0 {
		return nil, Problem{Pos: fmt.Sprintf("%s:%d", file, line), Msg: "a second YAML document: the file must hold one (remove the \"---\" and what follows it, or merge it into the first)"}
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return nil, nil
	}
	return doc.Content[0], nil
}

// nodeWalker reads decoded nodes into Go values, recording problems with
// positions and field paths instead of stopping at the first.
type nodeWalker struct {
	file string
	*problemList
}

func (w *nodeWalker) pos(n *yaml.Node) string {
	if n == nil || n.Line == 0 {
		return w.file
	}
	return fmt.Sprintf("%s:%d:%d", w.file, n.Line, n.Column)
}

func deref(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && i < 100; i++ {
		n = n.Alias
	}
	return n
}

// mapping returns the values of mapping node n by key, reporting keys not in
// allowed and keys given twice. ok is false when n is not a mapping.
func (w *nodeWalker) mapping(n *yaml.Node, path string, allowed ...string) (fields map[string]*yaml.Node, ok bool) {
	n = deref(n)
	if n.Kind != yaml.MappingNode {
		w.errorf(w.pos(n), path, "expected a mapping (got %s)", yamldoc.Describe(n))
		return nil, false
	}
	fields = map[string]*yaml.Node{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], deref(n.Content[i+1])
		fp := join(path, k.Value)
		switch {
		case !contains(allowed, k.Value):
			w.errorf(w.pos(k), fp, "unknown field %q (expected one of: %s)", k.Value, strings.Join(allowed, ", "))
		case fields[k.Value] != nil:
			w.errorf(w.pos(k), fp, "field given twice")
		default:
			fields[k.Value] = v
		}
	}
	return fields, true
}

// openMapping is mapping, but a key not allowed that is no likely typo of
// an allowed one (suggest.Closest) is returned in extra, key and value
// nodes in turn, for the caller to keep; a likely typo is an error with
// its did-you-mean.
func (w *nodeWalker) openMapping(n *yaml.Node, path string, allowed ...string) (fields map[string]*yaml.Node, extra []*yaml.Node, ok bool) {
	n = deref(n)
	if n.Kind != yaml.MappingNode {
		w.errorf(w.pos(n), path, "expected a mapping (got %s)", yamldoc.Describe(n))
		return nil, nil, false
	}
	fields = map[string]*yaml.Node{}
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], deref(n.Content[i+1])
		fp := join(path, k.Value)
		switch {
		case seen[k.Value]:
			w.errorf(w.pos(k), fp, "field given twice")
		case contains(allowed, k.Value):
			fields[k.Value] = v
		case suggest.Closest(k.Value, allowed) != "":
			w.errorf(w.pos(k), fp, "unknown field %q (did you mean %q?)", k.Value, suggest.Closest(k.Value, allowed))
		default:
			extra = append(extra, k, v)
		}
		seen[k.Value] = true
	}
	return fields, extra, true
}

// str reads a scalar as a string; null reads as "". Numbers are accepted
// as their text, so `id: 12` works.
func (w *nodeWalker) str(n *yaml.Node, path string) string {
	if n == nil {
		return ""
	}
	if n.Kind != yaml.ScalarNode {
		w.errorf(w.pos(n), path, "expected a string (got %s)", yamldoc.Describe(n))
		return ""
	}
	if n.ShortTag() == "!!null" {
		return ""
	}
	return n.Value
}

// seq returns the items of a list node; null reads as an empty list.
func (w *nodeWalker) seq(n *yaml.Node, path string) []*yaml.Node {
	if n == nil || (n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null") {
		return nil
	}
	if n.Kind != yaml.SequenceNode {
		w.errorf(w.pos(n), path, "expected a list (got %s)", yamldoc.Describe(n))
		return nil
	}
	return n.Content
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func index(path string, i int) string { return fmt.Sprintf("%s[%d]", path, i) }

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// jsonLines decodes each non-blank line of data as one JSON object with the
// given allowed fields and passes its fields and node to fn. Syntax errors
// and unknown fields become problems; fn is skipped for lines that are not
// objects.
func (w *nodeWalker) jsonLines(data []byte, allowed []string, fn func(f map[string]*yaml.Node, n *yaml.Node)) {
	forEachLine(data, func(lineNo int, line []byte) {
		n, err := parseJSONNode(line, w.file, lineNo-1)
		if err != nil {
			w.errs = append(w.errs, err.(Problem))
			return
		}
		if f, ok := w.mapping(n, "", allowed...); ok {
			fn(f, n)
		}
	})
}
