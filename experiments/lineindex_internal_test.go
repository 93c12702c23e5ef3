package experiments

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestLineIndexPos: positions asked in any order, along one long line or
// across lines, are those counted from the line's start.
func TestLineIndexPos(t *testing.T) {
	data := []byte(strings.Repeat(`{"q": "ünïcode", "a": [1, 2]}, `, 200) + "\n" + strings.Repeat("ab\n", 50) + strings.Repeat("é", 300))
	starts := []int{0}
	for i, c := range data {
		if c == '\n' {
			starts = append(starts, i+1)
		}
	}
	naive := func(off int) (int, int) {
		i := sort.Search(len(starts), func(i int) bool { return starts[i] > off }) - 1
		return i + 1, utf8.RuneCount(data[starts[i]:off]) + 1
	}
	r := rand.New(rand.NewPCG(1, 2))
	li := newLineIndex(data, 0)
	var offs []int
	for off := 0; off <= len(data); off += 1 + r.IntN(40) {
		offs = append(offs, off)
	}
	for i := 0; i < 300; i++ {
		offs = append(offs, r.IntN(len(data)+1)) // and some out of order
	}
	for _, off := range offs {
		for off < len(data) && !utf8.RuneStart(data[off]) {
			off-- // the parser asks at tokens, never inside a character
		}
		line, col := li.pos(off)
		wl, wc := naive(off)
		if line != wl || col != wc {
			t.Fatalf("pos(%d) = %d:%d, want %d:%d", off, line, col, wl, wc)
		}
	}
}

// BenchmarkLoadOneLineGolden loads a minified native golden set (every
// query on one line): placing its nodes must stay linear in the file.
func BenchmarkLoadOneLineGolden(b *testing.B) {
	var sb strings.Builder
	sb.WriteString(`{"queries": [`)
	for i := range 20000 {
		if i > 0 {
			sb.WriteString(",")
		}
		fmt.Fprintf(&sb, `{"id": "q%d", "query": "query %d", "category": "c", "expected_passages": [{"doc_id": "d%d", "relevance": 3}]}`, i, i, i)
	}
	sb.WriteString("]}")
	data := []byte(sb.String())
	b.ResetTimer()
	for b.Loop() {
		if _, err := parseJSONNode(data, "golden.json", 0); err != nil {
			b.Fatal(err)
		}
	}
}
