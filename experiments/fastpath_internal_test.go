package experiments

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/fusiontune/fusiontune/experiments/demo"
	"gopkg.in/yaml.v3"
)

// jsonFastPathCases are documents the direct reader (validJSON) must read
// into exactly the tokenizer's nodes, positions included.
var jsonFastPathCases = []string{
	`{}`, `[]`, ` { "a" : 1 , "b":[ true,false,null ,-0.5e+3, 12] }  `,
	"{\n\t\"queries\": [\n  {\"id\": \"q1\", \"query\": \"caf\u00e9 \\\"x\\\" \\u00e9\\n\"}\n ]\n}\n",
	`{"a":"\ud83d\ude00 \ud800 tail","b":"` + "\xff\xfe" + `","c":1E5,"d":2.0}`,
	`"top"`, `7`, `[[[[]]],{"k":{"k":{}}}]`, `{"dup":1,"dup":2}`,
	`{"a":` + strings.Repeat("[", maxJSONDepth+2) + strings.Repeat("]", maxJSONDepth+2) + `}`,
}

// TestValidJSONMatchesTokenizer: valid JSON read directly gives the
// tokenizer's node tree (kinds, tags, values, lines and columns), on the
// cases above, every golden-set fixture and the shipped demo's golden set.
func TestValidJSONMatchesTokenizer(t *testing.T) {
	docs := map[string][]byte{"demo golden.json": demo.Golden}
	for i, c := range jsonFastPathCases {
		docs["case "+string(rune('a'+i))] = []byte(c)
	}
	paths, _ := filepath.Glob("testdata/golden/*.json*")
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		docs[p] = data
	}
	read := 0
	for name, data := range docs {
		li := newLineIndex(data, 3)
		want, werr := tokenizeJSONNode(data, li, "f.json")
		got, gerr := parseJSONNode(data, "f.json", 3)
		if werr != nil || gerr != nil {
			if werr == nil || gerr == nil || werr.Error() != gerr.Error() {
				t.Errorf("%s: error %v, want %v", name, gerr, werr)
			}
			continue
		}
		if _, ok := (&validJSON{data: data, li: li}).value(0); ok {
			read++
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: nodes differ from the tokenizer's:\n%s\nwant\n%s", name, dumpNode(got), dumpNode(want))
		}
	}
	if read < len(jsonFastPathCases) {
		t.Errorf("only %d documents read directly", read)
	}
}

func dumpNode(n *yaml.Node) string {
	var b strings.Builder
	var walk func(n *yaml.Node, d int)
	walk = func(n *yaml.Node, d int) {
		b.WriteString(strings.Repeat(" ", d) + n.Tag + " " + n.Value + " @" + string(rune('0'+n.Line%10)) + "\n")
		for _, c := range n.Content {
			walk(c, d+1)
		}
	}
	walk(n, 0)
	return b.String()
}

// normalizeReference is normalize as first written (rune by rune through
// unicode.IsSpace and unicode.ToLower): the ASCII fast path must agree.
func normalizeReference(s string) (string, []int32) {
	var b strings.Builder
	var orig []int32
	space := -1
	for i, r := range s {
		if unicode.IsSpace(r) {
			if space < 0 {
				space = i
			}
			continue
		}
		if space >= 0 && b.Len() > 0 {
			b.WriteByte(' ')
			orig = append(orig, int32(space))
		}
		space = -1
		n := b.Len()
		b.WriteRune(unicode.ToLower(r))
		for k := n; k < b.Len(); k++ {
			orig = append(orig, int32(i))
		}
	}
	return b.String(), orig
}

// TestNormalizeMatchesReference: normalize gives the reference's text
// and offsets on mixed ASCII, Unicode white space and letters, invalid
// UTF-8 and random strings.
func TestNormalizeMatchesReference(t *testing.T) {
	cases := []string{"", "  ", "Hello  World\t\n", "\u00a0Caf\u00c9\u2003\u0085X\u212a\v\f\r", "a\xffB\xc3", "ÀÉÎ  õü\u3000末尾 ", "ΣΑΣ ǅ İ"}
	alphabet := []rune{'a', 'Z', ' ', '\t', '\n', '\u00a0', '\u2028', 'É', 'ß', 'İ', '\u212a', '\u0085', 0xfffd, '1', '.'}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 500 {
		var b strings.Builder
		for range rng.IntN(40) {
			if rng.IntN(20) == 0 {
				b.WriteByte(byte(0x80 + rng.IntN(0x80))) // invalid UTF-8
				continue
			}
			b.WriteRune(alphabet[rng.IntN(len(alphabet))])
		}
		cases = append(cases, b.String())
	}
	for _, s := range cases {
		want, wantOrig := normalizeReference(s)
		got, _ := normalize(s, false)
		gotS, gotOrig := normalize(s, true)
		if got != want || gotS != want || !reflect.DeepEqual(gotOrig, wantOrig) && len(wantOrig) > 0 {
			t.Fatalf("normalize(%q) = %q %v, want %q %v", s, gotS, gotOrig, want, wantOrig)
		}
		if !utf8.ValidString(got) {
			t.Fatalf("normalize(%q) = %q: invalid UTF-8", s, got)
		}
	}
}
