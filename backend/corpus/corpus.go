package corpus

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/fusiontune/fusiontune/internal/userfile"
)

// Corpus formats accepted by Config.Format.
const (
	FormatBEIR  = "beir"  // BEIR corpus.jsonl: {"_id", "title", "text"}
	FormatJSONL = "jsonl" // JSON lines with configurable id/title/text fields
	FormatDir   = "dir"   // a folder of .md and .txt files; the relative path is the id
)

// Document is one corpus document.
type Document struct {
	ID    string `json:"id"`
	Title string `json:"title,omitempty"`
	Text  string `json:"text"`
	// Fields holds the members Config.Fields names that the document's
	// line has (nil when none): see DocFields.
	Fields map[string]string `json:"fields,omitempty"`
}

// Corpus is a loaded document collection in file order (sorted by path for
// folders).
type Corpus struct {
	Docs []Document
	// Hash is the hex SHA-256 of the corpus content as read (the file's
	// bytes, or every file's relative path and bytes for a folder) and of
	// the field names used to read it; it keys the on-disk caches.
	Hash string
}

// Load reads the corpus described by c. A malformed line is reported
// as "FILE:LINE: detail".
func Load(c Config) (*Corpus, error) {
	switch c.Format {
	case FormatDir:
		return loadDir(c.Path)
	case FormatBEIR, FormatJSONL, "":
		f, err := userfile.Open(c.Path)
		if err != nil {
			return nil, fmt.Errorf("load corpus: %w", err)
		}
		defer f.Close()
		fields := c.fields()
		return readJSONL(f, c.Path, fields[0], fields[1], fields[2], c.Fields, false, true)
	default:
		return nil, fmt.Errorf("load corpus: unknown format %q (want beir, jsonl or dir)", c.Format)
	}
}

// ReadJSONL reads one JSON object per line from r; idField, titleField and
// textField name the members holding the id, the title (optional) and the
// text. file names the input in errors, which read "FILE:LINE: detail".
// Blank lines are skipped; ids must be unique and non-empty; ids are strings
// or numbers. The file must be UTF-8 (a leading byte-order mark is skipped).
func ReadJSONL(r io.Reader, file, idField, titleField, textField string) (*Corpus, error) {
	return readJSONL(r, file, idField, titleField, textField, nil, false, true)
}

// LoadIDs reads the document ids of the corpus described by c, in
// order: the lines Load accepts and its errors, without decoding
// the titles and texts or hashing the content (its Docs have ids only,
// its Hash is empty). Resolving judgments by document id needs no more.
func LoadIDs(c Config) (*Corpus, error) {
	return loadIDs(c, false)
}

// loadIDs is LoadIDs; with hashed, its Hash is Load's.
func loadIDs(c Config, hashed bool) (*Corpus, error) {
	if !c.jsonLines() {
		return Load(c)
	}
	f, err := userfile.Open(c.Path)
	if err != nil {
		return nil, fmt.Errorf("load corpus: %w", err)
	}
	defer f.Close()
	fields := c.fields()
	return readJSONL(f, c.Path, fields[0], fields[1], fields[2], nil, true, hashed)
}

// jsonlHash starts the content hash of a JSON-lines corpus read with
// these field names (Corpus.Hash); its bytes follow.
func jsonlHash(idField, titleField, textField string) hash.Hash {
	h := sha256.New()
	fmt.Fprintf(h, "jsonl\x00%s\x00%s\x00%s\x00", idField, titleField, textField)
	return h
}

// readJSONL is ReadJSONL, each document keeping the members extra names
// (DocFields); with idsOnly, LoadIDs' (hashed: with the content's Hash
// all the same).
func readJSONL(r io.Reader, file, idField, titleField, textField string, extra []string, idsOnly, hashed bool) (*Corpus, error) {
	var h hash.Hash
	if !idsOnly || hashed {
		h = jsonlHash(idField, titleField, textField)
		r = io.TeeReader(r, h)
	}
	br := bufio.NewReaderSize(r, 1<<20)
	var docs []Document
	seen := map[string]int{}
	line := 0
	var long []byte
	for {
		b, err := readLine(br, &long)
		if len(b) > 0 {
			line++
			if line == 1 {
				b = bytes.TrimPrefix(b, []byte("\ufeff")) // a byte-order mark is skipped
			}
			if !utf8.Valid(b) {
				col := 1 + utf8.RuneCount(b[:invalidUTF8(b)])
				return nil, fmt.Errorf("%s:%d:%d: not valid UTF-8 (byte 0x%02x): the corpus must be UTF-8 text", file, line, col, b[invalidUTF8(b)])
			}
			if d, ok, perr := parseDocLine(b, idField, titleField, textField, idsOnly); perr != nil {
				return nil, fmt.Errorf("%s:%d: %w", file, line, perr)
			} else if ok {
				if prev, dup := seen[d.ID]; dup {
					return nil, fmt.Errorf("%s:%d: duplicate document id %q (first on line %d)", file, line, d.ID, prev)
				}
				if len(extra) > 0 {
					if d.Fields, perr = DocFields(b, extra); perr != nil {
						return nil, fmt.Errorf("%s:%d: %w", file, line, perr)
					}
				}
				seen[d.ID] = line
				docs = append(docs, d)
			}
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", file, line+1, err)
		}
	}
	if len(docs) == 0 {
		return nil, fmt.Errorf("%s: no documents", file)
	}
	c := &Corpus{Docs: docs}
	if h != nil {
		c.Hash = hex.EncodeToString(h.Sum(nil))
	}
	return c, nil
}

// readLine is br.ReadBytes('\n') without a copy of each line: the line
// is valid until the next call (a view into br's buffer, or into *long
// for a line longer than the buffer). The documents parsed from it copy
// what they keep.
func readLine(br *bufio.Reader, long *[]byte) ([]byte, error) {
	b, err := br.ReadSlice('\n')
	if !errors.Is(err, bufio.ErrBufferFull) {
		return b, err
	}
	*long = append((*long)[:0], b...)
	for errors.Is(err, bufio.ErrBufferFull) {
		b, err = br.ReadSlice('\n')
		*long = append(*long, b...)
	}
	return *long, err
}

// invalidUTF8 returns the offset of the first byte of b that is not part of
// valid UTF-8 (len(b) if there is none).
func invalidUTF8(b []byte) int {
	for i := 0; i < len(b); {
		r, w := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && w <= 1 {
			return i
		}
		i += w
	}
	return len(b)
}

// parseDocLine parses one corpus line; with idsOnly the document's title
// and text are checked but not kept.
func parseDocLine(b []byte, idField, titleField, textField string, idsOnly bool) (Document, bool, error) {
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return Document{}, false, nil
	}
	if d, ok := docLineFast(b, idField, titleField, textField, !idsOnly); ok {
		return d, true, nil
	}
	d, ok, err := parseDocLineGeneral(b, idField, titleField, textField)
	if idsOnly {
		d.Title, d.Text = "", ""
	}
	return d, ok, err
}

// parseDocLineGeneral parses any corpus line (trimmed, non-empty) with
// encoding/json, naming what is wrong with a line it refuses.
func parseDocLineGeneral(b []byte, idField, titleField, textField string) (Document, bool, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return Document{}, false, fmt.Errorf("expected a JSON object: %w", err)
	}
	var d Document
	raw, ok := m[idField]
	if !ok {
		return d, false, fmt.Errorf("missing id field %q", idField)
	}
	id, err := jsonID(raw)
	if err != nil {
		return d, false, fmt.Errorf("field %q: %w", idField, err)
	}
	if strings.TrimSpace(id) == "" || strings.ContainsFunc(id, func(r rune) bool { return r == ' ' || r < 0x20 || r == 0x7f }) {
		return d, false, fmt.Errorf("field %q: id must be non-empty without whitespace or control characters (got %q)", idField, id)
	}
	d.ID = id
	if titleField != "" {
		if raw, ok := m[titleField]; ok && string(raw) != "null" {
			if err := json.Unmarshal(raw, &d.Title); err != nil {
				return d, false, fmt.Errorf("field %q: expected a string", titleField)
			}
		}
	}
	raw, ok = m[textField]
	if !ok {
		return d, false, fmt.Errorf("missing text field %q", textField)
	}
	if err := json.Unmarshal(raw, &d.Text); err != nil {
		return d, false, fmt.Errorf("field %q: expected a string", textField)
	}
	return d, true, nil
}

// parseDocLineFast parses the common shape of a corpus line without
// encoding/json's reflection: one flat object whose members are all
// strings, the id and text present, the id valid. It reports false for
// anything else (other value types, escaped keys, malformed JSON, a bad
// or missing field), which parseDocLine's general path then reads or
// refuses with its error; a line it accepts gives the Document the
// general path gives (FuzzParseDocLineFast). b is trimmed valid UTF-8.
func parseDocLineFast(b []byte, idField, titleField, textField string) (Document, bool) {
	return docLineFast(b, idField, titleField, textField, true)
}

// docLineFast is parseDocLineFast; without texts the title and text are
// not decoded (Document has the id only): a string scanJSONString accepts
// always decodes (b is valid UTF-8), so the same lines are accepted.
func docLineFast(b []byte, idField, titleField, textField string, texts bool) (Document, bool) {
	if len(b) < 2 || b[0] != '{' {
		return Document{}, false
	}
	var id, title, text []byte
	var idEsc, titleEsc, textEsc bool
	for i := 1; ; {
		i = skipJSONSpace(b, i)
		key, keyEsc, j, ok := scanJSONString(b, i)
		if !ok || keyEsc {
			return Document{}, false
		}
		if i = skipJSONSpace(b, j); i >= len(b) || b[i] != ':' {
			return Document{}, false
		}
		i = skipJSONSpace(b, i+1)
		val, esc, j, ok := scanJSONString(b, i)
		if !ok { // another kind of value: kept raw (id, title) or skipped
			if j, ok = skipJSONValue(b, i, 0); !ok {
				return Document{}, false
			}
			val, esc = b[i:j], false
		}
		k := string(key[1 : len(key)-1]) // no allocation in the comparisons
		if k == idField {
			id, idEsc = val, esc
		}
		if titleField != "" && k == titleField {
			title, titleEsc = val, esc
		}
		if k == textField {
			text, textEsc = val, esc
		}
		i = skipJSONSpace(b, j)
		if i < len(b) && b[i] == ',' {
			i++
			continue
		}
		if i != len(b)-1 || b[i] != '}' || id == nil || text == nil {
			return Document{}, false
		}
		break
	}
	var d Document
	var ok bool
	if id[0] != '"' && id[0] != '-' && (id[0] < '0' || id[0] > '9') {
		return Document{}, false // ids are strings or numbers
	}
	if d.ID, ok = jsonStringValue(id, idEsc); !ok || strings.TrimSpace(d.ID) == "" ||
		strings.ContainsFunc(d.ID, func(r rune) bool { return r == ' ' || r < 0x20 || r == 0x7f }) {
		return Document{}, false
	}
	if title != nil && string(title) != "null" {
		if title[0] != '"' {
			return Document{}, false
		}
		if texts {
			if d.Title, ok = jsonStringValue(title, titleEsc); !ok {
				return Document{}, false
			}
		}
	}
	if text[0] != '"' {
		return Document{}, false
	}
	if texts {
		if d.Text, ok = jsonStringValue(text, textEsc); !ok {
			return Document{}, false
		}
	}
	return d, true
}

// skipJSONSpace returns the index of the first byte at or after i that is
// not JSON whitespace.
func skipJSONSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// scanJSONString scans the JSON string starting at b[i] and returns it
// with its quotes, whether it holds escapes, and the index after it; ok
// is false when b[i:] does not start with a valid JSON string.
func scanJSONString(b []byte, i int) (s []byte, escaped bool, end int, ok bool) {
	if i >= len(b) || b[i] != '"' {
		return nil, false, i, false
	}
	for j := i + 1; j < len(b); j++ {
		switch c := b[j]; {
		case c == '"':
			return b[i : j+1], escaped, j + 1, true
		case c < 0x20:
			return nil, false, j, false
		case c == '\\':
			escaped = true
			if j+1 >= len(b) {
				return nil, false, j, false
			}
			switch b[j+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				j++
			case 'u':
				if j+5 >= len(b) {
					return nil, false, j, false
				}
				for _, h := range b[j+2 : j+6] {
					if !('0' <= h && h <= '9' || 'a' <= h && h <= 'f' || 'A' <= h && h <= 'F') {
						return nil, false, j, false
					}
				}
				j += 5
			default:
				return nil, false, j, false
			}
		}
	}
	return nil, false, len(b), false
}

// maxFastDepth is the deepest nesting of a member the fast path skips.
const maxFastDepth = 64

// skipJSONValue returns the index after the JSON value (number, literal,
// string, array or object, nested at most maxFastDepth deep) starting at
// b[i]; ok is false when b[i:] does not start with a valid one.
func skipJSONValue(b []byte, i, depth int) (int, bool) {
	if i >= len(b) || depth > maxFastDepth {
		return i, false
	}
	switch c := b[i]; {
	case c == '"':
		_, _, j, ok := scanJSONString(b, i)
		return j, ok
	case c == '{' || c == '[':
		end := byte('}')
		if c == '[' {
			end = ']'
		}
		j := skipJSONSpace(b, i+1)
		if j < len(b) && b[j] == end {
			return j + 1, true
		}
		for {
			var ok bool
			if c == '{' {
				if _, _, j, ok = scanJSONString(b, j); !ok {
					return j, false
				}
				if j = skipJSONSpace(b, j); j >= len(b) || b[j] != ':' {
					return j, false
				}
				j = skipJSONSpace(b, j+1)
			}
			if j, ok = skipJSONValue(b, j, depth+1); !ok {
				return j, false
			}
			j = skipJSONSpace(b, j)
			switch {
			case j < len(b) && b[j] == ',':
				j = skipJSONSpace(b, j+1)
			case j < len(b) && b[j] == end:
				return j + 1, true
			default:
				return j, false
			}
		}
	case c == 't' || c == 'f' || c == 'n':
		for _, lit := range []string{"true", "false", "null"} {
			if bytes.HasPrefix(b[i:], []byte(lit)) {
				return i + len(lit), true
			}
		}
		return i, false
	default:
		return skipJSONNumber(b, i)
	}
}

// skipJSONNumber returns the index after the JSON number starting at b[i]
// (-?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?).
func skipJSONNumber(b []byte, i int) (int, bool) {
	digits := func(j int) int {
		for j < len(b) && '0' <= b[j] && b[j] <= '9' {
			j++
		}
		return j
	}
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && '1' <= b[i] && b[i] <= '9':
		i = digits(i)
	default:
		return i, false
	}
	if i < len(b) && b[i] == '.' {
		j := digits(i + 1)
		if j == i+1 {
			return j, false
		}
		i = j
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := digits(i)
		if j == i {
			return j, false
		}
		i = j
	}
	return i, true
}

// jsonStringValue decodes a JSON string scanned by scanJSONString:
// without escapes its bytes between the quotes, else as encoding/json
// decodes it; a number (an id) is its literal.
func jsonStringValue(raw []byte, escaped bool) (string, bool) {
	if raw[0] != '"' {
		return string(raw), true
	}
	if !escaped {
		return string(raw[1 : len(raw)-1]), true
	}
	return unquoteJSON(raw[1 : len(raw)-1])
}

// unquoteJSON decodes the inside of a JSON string with escapes (raw
// between its quotes, valid UTF-8) as encoding/json does, without its
// reflection: the common escapes, \uXXXX with surrogate pairs joined and
// a lone surrogate (or invalid UTF-8) as U+FFFD. ok is false for anything
// encoding/json refuses (a bad escape, a quote or control character).
func unquoteJSON(raw []byte) (string, bool) {
	b := make([]byte, 0, len(raw))
	for r := 0; r < len(raw); {
		c := raw[r]
		switch {
		case c == '"' || c < ' ':
			return "", false
		case c >= utf8.RuneSelf: // invalid UTF-8 becomes U+FFFD
			rr, size := utf8.DecodeRune(raw[r:])
			b = utf8.AppendRune(b, rr)
			r += size
			continue
		case c != '\\':
			b = append(b, c)
			r++
			continue
		}
		if r+1 >= len(raw) {
			return "", false
		}
		switch e := raw[r+1]; e {
		case '"', '\\', '/':
			b = append(b, e)
		case 'b':
			b = append(b, '\b')
		case 'f':
			b = append(b, '\f')
		case 'n':
			b = append(b, '\n')
		case 'r':
			b = append(b, '\r')
		case 't':
			b = append(b, '\t')
		case 'u':
			rr := hex4(raw[r:])
			if rr < 0 {
				return "", false
			}
			r += 6
			if utf16.IsSurrogate(rr) {
				if dec := utf16.DecodeRune(rr, hex4(raw[r:])); dec != unicode.ReplacementChar {
					r += 6
					b = utf8.AppendRune(b, dec)
					continue
				}
				rr = unicode.ReplacementChar
			}
			b = utf8.AppendRune(b, rr)
			continue
		default:
			return "", false
		}
		r += 2
	}
	return string(b), true
}

// hex4 reads the \uXXXX escape at the start of s as a rune, -1 when s
// does not start with one (encoding/json's getu4).
func hex4(s []byte) rune {
	if len(s) < 6 || s[0] != '\\' || s[1] != 'u' {
		return -1
	}
	var r rune
	for _, c := range s[2:6] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return -1
		}
		r = r*16 + rune(c)
	}
	return r
}

// jsonID accepts a JSON string or number as an id.
func jsonID(raw json.RawMessage) (string, error) {
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s, nil
	}
	var n json.Number
	if err := json.Unmarshal(raw, &n); err == nil {
		return n.String(), nil
	}
	return "", fmt.Errorf("expected a string or number (got %s)", Excerpt(string(raw), 40))
}

// loadDir reads every .md and .txt file under root. The id is the path
// relative to root with forward slashes; the title is empty.
func loadDir(root string) (*Corpus, error) {
	var paths []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != root && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			return nil
		}
		switch strings.ToLower(filepath.Ext(p)) {
		case ".md", ".txt":
			paths = append(paths, p)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("load corpus: %w", err)
	}
	sort.Strings(paths)
	h := sha256.New()
	io.WriteString(h, "dir\x00")
	docs := make([]Document, 0, len(paths))
	for _, p := range paths {
		b, err := userfile.Read(p, userfile.Default)
		if err != nil {
			return nil, fmt.Errorf("load corpus: %w", err)
		}
		rel, _ := filepath.Rel(root, p)
		id := filepath.ToSlash(rel)
		if strings.ContainsAny(id, " \t\r\n") {
			return nil, fmt.Errorf("load corpus: %s: file names become ids and must not contain whitespace", p)
		}
		fmt.Fprintf(h, "%s\x00%d\x00", id, len(b))
		h.Write(b)
		docs = append(docs, Document{ID: id, Text: string(b)})
	}
	if len(docs) == 0 {
		return nil, fmt.Errorf("load corpus: %s: no .md or .txt files", root)
	}
	c := &Corpus{Docs: docs}
	if h != nil {
		c.Hash = hex.EncodeToString(h.Sum(nil))
	}
	return c, nil
}

// Excerpt shortens s to at most n runes, marking a cut with "…": a
// hit's text, a quote in a message.
func Excerpt(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := 0
	for j := range s {
		if i == n {
			return s[:j] + "…"
		}
		i++
	}
	return s
}
