package corpus

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
	"unicode/utf8"
)

// docLines are corpus lines of every shape: the common one, escapes,
// numbers, nulls, nested values, duplicates, malformed JSON.
var docLines = []string{
	`{"_id": "4983", "title": "Micro structural", "text": "Alterations of the architecture"}`,
	`{"_id":"a","text":"x"}`,
	`{ "_id" : "a" , "title" : "" , "text" : "" }`,
	`{"_id": "a\u00e9", "title": "T \"q\" \\ \/ \b\f\n\r\t", "text": "snow \ud83d\ude00 \ud800 x"}`,
	`{"_id": 42, "text": "number id"}`,
	`{"_id": "4983", "title": "t", "text": "x", "metadata": {}}`,
	`{"_id": -1.5e+3, "title": null, "text": "x", "m": [1, -0, 0.5, 1E9, true, false, null, "s\n", {"a": [[]]}]}`,
	`{"_id": 01, "text": "leading zero"}`,
	`{"_id": 1., "text": "bad number"}`,
	`{"_id": "a", "text": "x", "m": [1, ]}`,
	`{"_id": "a", "text": "x", "m": {"a" 1}}`,
	`{"_id": "a", "text": "x", "m": tru}`,
	`{"_id": "a", "text": "x", "m": nulll}`,
	`{"_id": true, "text": "bool id"}`,
	`{"_id": "a", "text": 5}`,
	`{"_id": "a", "text": "x", "m": [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}`,
	`{"_id": "a", "title": null, "text": "null title"}`,
	`{"_id": "a", "title": 3, "text": "bad title"}`,
	`{"_id": "a", "text": "x", "metadata": {"k": [1, 2]}}`,
	`{"_id": "a", "text": "first", "text": "last wins"}`,
	`{"_id": "a", "_id": "b", "text": "dup id"}`,
	`{"_id": "", "text": "empty id"}`,
	`{"_id": "a b", "text": "space in id"}`,
	`{"_id": "a\tb", "text": "tab escape in id"}`,
	`{"_id": "a", "title": "t"}`,
	`{"title": "t", "text": "no id"}`,
	`{"_id": "a", "text": "x",}`,
	`{"_id": "a", "text": "x"} trailing`,
	`{"_id": "a" "text": "x"}`,
	`{"_id": "a", "text": "unterminated}`,
	`{"_id": "a", "text": "bad \x escape"}`,
	`{"_id": "a", "text": "short \u12"}`,
	"{\"_id\": \"a\", \"text\": \"raw\ttab\"}",
	`{"_i\u0064": "a", "text": "escaped key"}`,
	`{"_id": "a", "Text": "case differs", "text": "t"}`,
	`[{"_id": "a", "text": "x"}]`,
	`{}`, `{`, `"x"`,
}

// TestParseDocLineFast: a line the fast path accepts gives the document
// the general path gives; the common shapes take the fast path.
func TestParseDocLineFast(t *testing.T) {
	for _, fields := range [][3]string{{"_id", "title", "text"}, {"_id", "", "text"}, {"_id", "_id", "text"}} {
		for _, line := range docLines {
			checkFastLine(t, []byte(line), fields)
		}
	}
	for _, line := range docLines[:7] {
		if _, ok := parseDocLineFast([]byte(line), "_id", "title", "text"); !ok {
			t.Errorf("%s: not on the fast path", line)
		}
	}
}

// checkFastLine fails when the fast path accepts line with another
// document than the general path's (or one the general path refuses).
func checkFastLine(t *testing.T, line []byte, f [3]string) {
	t.Helper()
	b := bytes.TrimSpace(line)
	if len(b) == 0 || !utf8.Valid(b) {
		return
	}
	fast, ok := parseDocLineFast(b, f[0], f[1], f[2])
	if !ok {
		return
	}
	slow, gotDoc, err := parseDocLineGeneral(b, f[0], f[1], f[2])
	if err != nil || !gotDoc || !reflect.DeepEqual(slow, fast) {
		t.Errorf("fields %q, line %q: fast path %+v, general path %+v (%v)", f, line, fast, slow, err)
	}
}

// FuzzParseDocLineFast: whatever the line, the fast path never accepts
// one the general path refuses or reads differently.
func FuzzParseDocLineFast(f *testing.F) {
	for _, l := range docLines {
		f.Add(l)
	}
	f.Fuzz(func(t *testing.T, line string) {
		checkFastLine(t, []byte(line), [3]string{"_id", "title", "text"})
	})
}

// unquoteCases are JSON strings (with their quotes) with escapes of every
// kind: surrogate pairs, lone and reversed surrogates, a high surrogate
// before another escape or at the end, raw non-ASCII and invalid UTF-8,
// and escapes encoding/json refuses.
var unquoteCases = []string{
	`"plain \" quote"`, `"\\ \/ \b\f\n\r\t"`, `"caf\u00e9 \u00E9 café"`, `"\ud83d\ude00"`, `"\ud83d"`, `"x\ud83d"`,
	`"\ude00\ud83d"`, `"\ud83d\u0041"`, `"\ud83d\ud83d\ude00"`, `"\ud83d\n"`, `"\u0000 nul"`, `"\uD83D\uDE00"`,
	"\"bad \xff byte \\n\"", `"bad \q"`, `"bad \'"`, `"short \u12"`, `"end \"`, "\"raw\ttab \\n\"", `"\u002"`,
}

// TestUnquoteJSONEqualsEncodingJSON: unquoteJSON decodes (or refuses)
// every escaped string as encoding/json does.
func TestUnquoteJSONEqualsEncodingJSON(t *testing.T) {
	for _, c := range unquoteCases {
		checkUnquote(t, c)
	}
}

func checkUnquote(t *testing.T, quoted string) {
	t.Helper()
	if len(quoted) < 2 || quoted[0] != '"' || quoted[len(quoted)-1] != '"' {
		return
	}
	var want string
	wantErr := json.Unmarshal([]byte(quoted), &want)
	got, ok := unquoteJSON([]byte(quoted[1 : len(quoted)-1]))
	if wantErr != nil {
		// encoding/json refuses it; the fast path never gets here with
		// what its scanner refuses, and may refuse it too.
		if ok && scanAccepts(quoted) {
			t.Errorf("%q: unquoted to %q, encoding/json refuses it (%v)", quoted, got, wantErr)
		}
		return
	}
	if !ok || got != want {
		t.Errorf("%q: unquoted to %q (%v), encoding/json %q", quoted, got, ok, want)
	}
}

// scanAccepts reports whether scanJSONString takes s whole.
func scanAccepts(s string) bool {
	_, _, end, ok := scanJSONString([]byte(s), 0)
	return ok && end == len(s)
}

// FuzzUnquoteJSON: whatever the string, unquoteJSON agrees with
// encoding/json on the strings the corpus scanner accepts.
func FuzzUnquoteJSON(f *testing.F) {
	for _, c := range unquoteCases {
		f.Add(c)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkUnquote(t, `"`+s+`"`)
	})
}
