package embed

import (
	"runtime"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
	"unsafe"
)

// termCount is one term of a text, an id into the termTable that
// tokenized it, with its number of occurrences.
type termCount struct{ id, n int32 }

// termTable interns the terms of the texts one goroutine tokenizes, so a
// fitted corpus is held as small (id, count) slices instead of one map
// per text. Terms are what countTerms counts: lowercased words of two or
// more bytes, stop words removed, stemmed.
type termTable struct {
	word  map[string]int32 // lowercased word -> term id; -1 for a stop word or a word under 2 bytes
	stem  map[string]int32 // stem -> term id
	terms []string         // term id -> stem
	df    []int32          // term id -> number of texts holding it
	buf   []byte           // a lowercased ASCII word
	ids   []int32          // the term ids of the current text
}

func newTermTable() *termTable {
	return &termTable{word: make(map[string]int32), stem: make(map[string]int32)}
}

// count returns the terms of text with their counts, ascending by id, and
// adds one to the document frequency of each. It splits, lowercases and
// stems exactly as countTerms.
func (t *termTable) count(text string) []termCount {
	ids := t.ids[:0]
	start, ascii := -1, true
	for i, r := range text {
		var w bool
		if r < utf8.RuneSelf {
			w = 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'
		} else {
			w = unicode.IsLetter(r) || unicode.IsDigit(r)
		}
		if w {
			if start < 0 {
				start, ascii = i, true
			}
			if r >= utf8.RuneSelf {
				ascii = false
			}
			continue
		}
		if start >= 0 {
			if id := t.lookup(text[start:i], ascii); id >= 0 {
				ids = append(ids, id)
			}
			start = -1
		}
	}
	if start >= 0 {
		if id := t.lookup(text[start:], ascii); id >= 0 {
			ids = append(ids, id)
		}
	}
	t.ids = ids
	if len(ids) == 0 {
		return nil
	}
	slices.Sort(ids)
	n := 1
	for j := 1; j < len(ids); j++ {
		if ids[j] != ids[j-1] {
			n++
		}
	}
	out := make([]termCount, 0, n)
	for j := 0; j < len(ids); {
		k := j + 1
		for k < len(ids) && ids[k] == ids[j] {
			k++
		}
		out = append(out, termCount{id: ids[j], n: int32(k - j)})
		t.df[ids[j]]++
		j = k
	}
	return out
}

// lookup returns the term id of the word w (not yet lowercased; ascii
// when all its bytes are), interning it on first sight.
func (t *termTable) lookup(w string, ascii bool) int32 {
	if ascii {
		t.buf = t.buf[:0]
		for i := 0; i < len(w); i++ {
			c := w[i]
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			t.buf = append(t.buf, c)
		}
		if id, ok := t.word[string(t.buf)]; ok { // no allocation
			return id
		}
		return t.intern(string(t.buf))
	}
	lw := strings.ToLower(w)
	if id, ok := t.word[lw]; ok {
		return id
	}
	// ToLower may return w itself, a view of the caller's text buffer.
	return t.intern(strings.Clone(lw))
}

// intern records the lowercased word w and returns its term id (-1 when
// it is not a term).
func (t *termTable) intern(w string) int32 {
	id := int32(-1)
	if len(w) >= 2 && !stopWords[w] {
		s := stem(w)
		var ok bool
		if id, ok = t.stem[s]; !ok {
			id = int32(len(t.terms))
			t.stem[s] = id
			t.terms = append(t.terms, s)
			t.df = append(t.df, 0)
		}
	}
	t.word[w] = id
	return id
}

// tokenized is a corpus as termTables produce it: text i's terms are
// docs[i], ids into tables[i%len(tables)].
type tokenized struct {
	docs   [][]termCount
	tables []*termTable
}

// tokenizeCorpus tokenizes texts on GOMAXPROCS goroutines (texts
// interleaved), each with its own termTable. Each goroutine reads one
// text at a time into its own buffer, so no text outlives its counting.
func tokenizeCorpus(texts Texts) *tokenized {
	n := texts.Len()
	parts := max(1, min(runtime.GOMAXPROCS(0), n))
	tk := &tokenized{docs: make([][]termCount, n), tables: make([]*termTable, parts)}
	var wg sync.WaitGroup
	for p := range parts {
		tk.tables[p] = newTermTable()
		wg.Add(1)
		go func(p int) {
			defer wg.Done()
			t := tk.tables[p]
			var buf []byte
			for i := p; i < n; i += parts {
				buf = texts.AppendText(buf[:0], i)
				// The string views buf, which the next text overwrites:
				// count keeps no part of it (intern copies what it keeps).
				tk.docs[i] = t.count(unsafe.String(unsafe.SliceData(buf), len(buf)))
			}
		}(p)
	}
	wg.Wait()
	return tk
}

// df returns every term's document frequency over the whole corpus.
func (tk *tokenized) df() map[string]int {
	df := make(map[string]int)
	for _, t := range tk.tables {
		for id, s := range t.terms {
			df[s] += int(t.df[id])
		}
	}
	return df
}
