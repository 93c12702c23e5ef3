package experiments

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Scope fields of a native golden set (the book-and-chapter format):
// on a query they scope every passage judgment of it, on a passage that
// one judgment, to the corpus documents carrying the same value in the
// field of that name (a corpus line's member, or its "metadata" object's).
const (
	ScopeBook    = "book_slug"
	ScopeChapter = "chapter_number"
)

// ScopeFields are the scope fields, in the order they are written.
var ScopeFields = []string{ScopeBook, ScopeChapter}

// Scope is what a document must carry for a passage_substring or
// doc_id_pattern judgment to be found in it: field name to value. A nil
// Scope matches every document.
type Scope map[string]string

// Matches reports whether d carries every field of s with the same value
// (SameFieldValue).
func (s Scope) Matches(d Document) bool {
	for k, v := range s {
		got, ok := d.Fields[k]
		if !ok || !SameFieldValue(got, v) {
			return false
		}
	}
	return true
}

// String is s as a message shows it: `book_slug "the-hobbit", chapter_number 3`,
// in ScopeFields order, then others by name.
func (s Scope) String() string {
	keys := make([]string, 0, len(s))
	for k := range s {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := slices.Index(ScopeFields, keys[i]), slices.Index(ScopeFields, keys[j])
		if a != b && (a < 0 || b < 0) {
			return a >= 0
		}
		if a != b {
			return a < b
		}
		return keys[i] < keys[j]
	})
	parts := make([]string, len(keys))
	for i, k := range keys {
		v := s[k]
		if _, err := strconv.ParseFloat(v, 64); err != nil {
			v = strconv.Quote(v)
		}
		parts[i] = k + " " + v
	}
	return strings.Join(parts, ", ")
}

// with returns s with the fields of o added (o's values win), nil when
// both are empty; s is not modified.
func (s Scope) with(o Scope) Scope {
	if len(s) == 0 && len(o) == 0 {
		return nil
	}
	out := Scope{}
	for k, v := range s {
		out[k] = v
	}
	for k, v := range o {
		out[k] = v
	}
	return out
}

// SameFieldValue reports whether two field values are the same: equal
// text, or two numbers of equal value ("3" and "03", "3.0").
func SameFieldValue(a, b string) bool {
	if a == b {
		return true
	}
	x, errA := strconv.ParseFloat(strings.TrimSpace(a), 64)
	y, errB := strconv.ParseFloat(strings.TrimSpace(b), 64)
	return errA == nil && errB == nil && x == y
}

// ScopeKeys are the fields the judgments of gs are scoped by, sorted: the
// corpus fields resolving them needs (nil when none is scoped).
func (gs *GoldenSet) ScopeKeys() []string {
	seen := map[string]bool{}
	for _, q := range gs.Queries {
		for _, j := range q.Judgments {
			for k := range j.Scope {
				seen[k] = true
			}
		}
	}
	if len(seen) == 0 {
		return nil
	}
	keys := make([]string, 0, len(seen))
	for k := range seen {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// scopeFilter keeps, of the documents a scoped judgment found, those in
// its scope, and explains a judgment the scope leaves with none.
type scopeFilter struct {
	docs    []Document
	byID    map[string]int
	carries map[string]int // field -> documents carrying it
}

func newScopeFilter(docs []Document) *scopeFilter {
	f := &scopeFilter{docs: docs, byID: make(map[string]int, len(docs)), carries: map[string]int{}}
	for i, d := range docs {
		f.byID[d.ID] = i
		for k := range d.Fields {
			f.carries[k]++
		}
	}
	return f
}

// spans keeps the spans whose document is in scope.
func (f *scopeFilter) spans(spans []Span, scope Scope) []Span {
	var out []Span
	for _, s := range spans {
		if i, ok := f.byID[s.DocID]; ok && scope.Matches(f.docs[i]) {
			out = append(out, s)
		}
	}
	return out
}

// why says why a scoped judgment found nothing in its scope although it
// found the documents outside (their ids): no document carries a field,
// or those found carry other values.
func (f *scopeFilter) why(scope Scope, outside []string) string {
	keys := make([]string, 0, len(scope))
	for k := range scope {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if f.carries[k] == 0 {
			return fmt.Sprintf("no corpus document has a %q field (a member of its line or of its \"metadata\" object)", k)
		}
	}
	if len(outside) == 0 {
		return "found in no document"
	}
	return fmt.Sprintf("found only outside it, in %d documents (%s)", len(outside), abbreviate(outside, 5))
}
