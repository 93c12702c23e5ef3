package experiments

// The native golden-set format, JSON or YAML (same fields):
//
//	{"categories": ["lookup", "howto"],          // optional; when given, every query needs one of them
//	 "queries": [                                 // or the file is just this list
//	   {"id": "q1",                               // required, unique
//	    "query": "return a damaged item",         // required, non-empty
//	    "language": "en", "category": "howto", "difficulty": "easy", "notes": "...",
//	    "expected_passages": [                    // each: exactly one target, and a relevance
//	      {"doc_id": "faq-returns", "relevance": "high"},
//	      {"passage_substring": "a verbatim 10-40 word excerpt", "relevance": "partial"},
//	      {"doc_id_pattern": "faq-returns(-.*)?", "relevance": 1}],
//	    "expected_routing": "search"}]}           // search, no_results or any backend label
//
// A query or a passage may carry book_slug and chapter_number (the
// book-and-chapter format): they scope its passage_substring and
// doc_id_pattern judgments to the corpus documents whose fields hold the
// same values (see Scope), so that an excerpt several books share is
// found in the one named. Any other field of a query that is not a
// likely typo of a known one (those stay errors, with a did-you-mean) is
// kept in its meta, uninterpreted, with one warning per file listing such
// fields (retrieval_intent, say).
//
// relevance is high, partial, weak, irrelevant or an integer grade. On the
// default 0-3 scale the labels are 3, 2, 1 and 0; on another scale (see
// GradeScale) high is its exact threshold, partial its strong, weak its
// relevant threshold. meta holds free metadata, kept and never interpreted.
// A query needs judgments or an expected_routing, unless it says
// "awaiting_judgments": true (a query harvested from a log): it is then
// loaded, with one warning counting such queries, and is not scored until
// a label store (dataset.labels) judges it. Unknown fields are
// errors. doc_id_pattern must match a whole document id; passage_substring
// is matched ignoring case and runs of white space (see Resolve). A
// passage may say where its judgment came from, "judgment_source": one of
// JudgmentSources (default manual); it is recorded and counted, never
// changes a grade.

import (
	"bytes"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/fusiontune/fusiontune/internal/plainnum"
	"github.com/fusiontune/fusiontune/internal/yamldoc"
	"gopkg.in/yaml.v3"
)

// Excerpt length bounds for passage_substring, in words. An excerpt outside
// them is a warning, not an error: resolution still reports the two real
// failures (an excerpt found nowhere is an error, one found in several
// documents a warning), and long excerpts are legitimate for long passages.
const (
	MinExcerptWords = 10
	MaxExcerptWords = 40
)

var (
	nativeTopFields   = []string{"categories", "queries"}
	nativeQueryFields = []string{"id", "query", "language", "category", "difficulty", "expected_passages", "expected_routing", "notes", "meta", "awaiting_judgments", ScopeBook, ScopeChapter}
	passageFields     = []string{"doc_id", "passage_substring", "doc_id_pattern", "relevance", "judgment_source", ScopeBook, ScopeChapter}
)

// relevanceLabels maps the words accepted for a relevance to grades.
var relevanceLabels = map[string]int{
	"high":       GradeHigh,
	"partial":    GradePartial,
	"weak":       GradeWeak,
	"irrelevant": GradeIrrelevant,
}

func loadNativeSet(path string, in *inputs, l *problemList) (*GoldenSet, error) {
	data, err := in.read(path)
	if err != nil {
		return nil, err
	}
	gs := decodeNative(path, data, l)
	gs.Source = path
	return gs, nil
}

// ParseGoldenSet parses and validates a native golden set held in data:
// JSON for a .json file, YAML for .yaml or .yml, else JSON when data starts
// with '[' or '{'. file names the input in problems.
func ParseGoldenSet(file string, data []byte) (*GoldenSet, error) {
	l := &problemList{}
	gs := decodeNative(file, data, l)
	applyScale(gs, GradeScale{}, l)
	validateSet(gs, l)
	if err := l.err(); err != nil {
		return nil, err
	}
	return finish(gs, file, &inputs{data: [][]byte{data}}, l), nil
}

// isJSON tells JSON from YAML: by extension, else by the first character.
func isJSON(file string, data []byte) bool {
	switch strings.ToLower(filepath.Ext(file)) {
	case ".json":
		return true
	case ".yaml", ".yml":
		return false
	}
	t := bytes.TrimLeft(data, " \t\r\n")
	return len(t) > 0 && (t[0] == '[' || t[0] == '{')
}

// decodeNative reads a native golden set; problems go to l. The returned set
// is never nil but is only meaningful when l has no errors.
func decodeNative(file string, data []byte, l *problemList) *GoldenSet {
	gs := &GoldenSet{}
	data = bytes.TrimPrefix(data, []byte("\ufeff")) // a byte-order mark
	var root *yaml.Node
	var err error
	if isJSON(file, data) {
		root, err = parseJSONNode(data, file, 0)
	} else {
		root, err = parseYAMLNode(data, file)
	}
	if err != nil {
		l.errs = append(l.errs, err.(Problem))
		return gs
	}
	w := &nodeWalker{file: file, problemList: l}
	if root == nil {
		w.errorf(file, "", "empty file: expected a list of queries or a mapping with \"queries\"")
		return gs
	}
	root = deref(root)
	var queries []*yaml.Node
	switch root.Kind {
	case yaml.SequenceNode:
		queries = root.Content
	case yaml.MappingNode:
		f, _ := w.mapping(root, "", nativeTopFields...)
		if f["queries"] == nil {
			w.errorf(w.pos(root), "queries", "required field missing")
		}
		queries = w.seq(f["queries"], "queries")
		if c := f["categories"]; c != nil {
			seen := map[string]bool{}
			for i, n := range w.seq(c, "categories") {
				fp := index("categories", i)
				cat := w.str(deref(n), fp)
				switch {
				case strings.TrimSpace(cat) == "":
					w.errorf(w.pos(n), fp, "empty category name")
				case seen[cat]:
					w.errorf(w.pos(n), fp, "category %q declared twice", cat)
				default:
					seen[cat] = true
					gs.Categories = append(gs.Categories, cat)
				}
			}
			if gs.Categories == nil {
				gs.Categories = []string{} // declared, but empty
			}
		}
	default:
		w.errorf(w.pos(root), "", "expected a list of queries or a mapping with \"queries\" (got %s)", yamldoc.Describe(root))
	}
	extra := map[string]int{}
	for i, n := range queries {
		q := w.query(n, index("queries", i))
		for _, k := range q.extra {
			extra[k]++
		}
		gs.Queries = append(gs.Queries, q)
	}
	if len(extra) > 0 {
		w.warnf(file, "", "query fields kept as metadata, not interpreted: %s", countedFields(extra))
	}
	return gs
}

// extraNote is " (fields the format does not define, kept as metadata:
// text)" for a query missing its text while having such fields (extra,
// key and value nodes in turn), else "".
func extraNote(extra []*yaml.Node) string {
	if len(extra) == 0 {
		return ""
	}
	var names []string
	for i := 0; i < len(extra); i += 2 {
		names = append(names, strconv.Quote(extra[i].Value))
	}
	return " (the query's fields the format does not define, kept as metadata: " + strings.Join(names, ", ") + ")"
}

// countedFields lists field names with the number of queries having each:
// "retrieval_intent (12 queries), source (1 query)", by name.
func countedFields(n map[string]int) string {
	keys := make([]string, 0, len(n))
	for k := range n {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		unit := "queries"
		if n[k] == 1 {
			unit = "query"
		}
		parts[i] = fmt.Sprintf("%s (%d %s)", k, n[k], unit)
	}
	return strings.Join(parts, ", ")
}

func (w *nodeWalker) query(n *yaml.Node, path string) (q Query) {
	q = Query{Pos: w.pos(deref(n)), path: path}
	before := len(w.errs)
	defer func() { q.broken = len(w.errs) > before }()
	f, extra, ok := w.openMapping(n, path, nativeQueryFields...)
	if !ok {
		return q
	}
	q.ID = w.str(f["id"], join(path, "id")) // not trimmed: checkIDs refuses surrounding space
	if strings.TrimSpace(q.ID) == "" && isScalar(f["id"]) {
		w.errorf(w.pos(valueOr(f["id"], n)), join(path, "id"), "required: a non-empty query id")
	}
	q.Text = w.str(f["query"], join(path, "query"))
	if strings.TrimSpace(q.Text) == "" && isScalar(f["query"]) {
		w.errorf(w.pos(valueOr(f["query"], n)), join(path, "query"), "required: a non-empty query text%s", extraNote(extra))
	}
	q.Language = w.str(f["language"], join(path, "language"))
	q.Category = w.str(f["category"], join(path, "category"))
	q.Difficulty = w.str(f["difficulty"], join(path, "difficulty"))
	q.ExpectedRouting = w.str(f["expected_routing"], join(path, "expected_routing"))
	q.Notes = w.str(f["notes"], join(path, "notes"))
	if m := f["meta"]; m != nil {
		q.Meta = w.meta(m, join(path, "meta"))
	}
	w.keepExtra(&q, extra, path)
	scope := w.scope(f, path)
	if n := f["awaiting_judgments"]; n != nil {
		if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!bool" {
			w.errorf(w.pos(n), join(path, "awaiting_judgments"), "expected true or false (got %s)", yamldoc.Describe(n))
		} else {
			q.Awaiting = n.Value == "true" || n.Value == "True" || n.Value == "TRUE"
		}
	}
	for i, pn := range w.seq(f["expected_passages"], join(path, "expected_passages")) {
		fp := index(join(path, "expected_passages"), i)
		pf, ok := w.mapping(pn, fp, passageFields...)
		if !ok {
			continue
		}
		j, ok := w.judgment(pf, deref(pn), fp, "relevance")
		j.Scope = scope.with(w.scope(pf, fp))
		if v := pf["judgment_source"]; v != nil {
			sp := join(fp, "judgment_source")
			j.Source = w.str(v, sp)
			if !slices.Contains(JudgmentSources, j.Source) {
				w.errorf(w.pos(v), sp, "want one of %s (got %q)", strings.Join(JudgmentSources, ", "), j.Source)
				ok = false
			}
		}
		if ok {
			q.Judgments = append(q.Judgments, j)
		}
	}
	return q
}

// isScalar reports whether n is absent or a scalar, so that a value of the
// wrong kind is reported once, not also as missing.
func isScalar(n *yaml.Node) bool { return n == nil || n.Kind == yaml.ScalarNode }

func valueOr(v, n *yaml.Node) *yaml.Node {
	if v != nil {
		return v
	}
	return n
}

// judgment reads the target (doc_id, passage_substring or doc_id_pattern)
// and grade of one judgment from the fields of mapping n.
func (w *nodeWalker) judgment(f map[string]*yaml.Node, n *yaml.Node, path, gradeField string) (Judgment, bool) {
	j := Judgment{Pos: w.pos(n)}
	ok := true
	set := 0
	for _, k := range []string{"doc_id", "passage_substring", "doc_id_pattern"} {
		v := f[k]
		if v == nil {
			continue
		}
		set++
		fp := join(path, k)
		s := w.str(v, fp)
		if strings.TrimSpace(s) == "" {
			w.errorf(w.pos(v), fp, "must not be empty")
			ok = false
			continue
		}
		switch k {
		case "doc_id":
			j.DocID = s
		case "passage_substring":
			j.Substring = s
			if nw := len(strings.Fields(s)); nw < MinExcerptWords || nw > MaxExcerptWords {
				w.warnf(w.pos(v), fp, "excerpt has %d words; %d-%d keep it unambiguous and robust to re-chunking", nw, MinExcerptWords, MaxExcerptWords)
			}
		case "doc_id_pattern":
			j.Pattern = s
			if _, err := regexp.Compile(s); err != nil {
				w.errorf(w.pos(v), fp, "invalid regular expression %q: %v", s, strings.TrimPrefix(err.Error(), "error parsing regexp: "))
				ok = false
			}
		}
	}
	if set != 1 {
		w.errorf(w.pos(n), path, "need exactly one of doc_id, passage_substring, doc_id_pattern (got %d)", set)
		ok = false
	}
	g, label, gok := w.grade(f[gradeField], n, join(path, gradeField))
	j.Grade, j.label = g, label
	j.gradePos, j.gradeField = w.pos(valueOr(f[gradeField], n)), join(path, gradeField)
	return j, ok && gok
}

// grade reads a relevance: a label (high, partial, weak, irrelevant),
// returned lower-cased for the scale to resolve, or an integer, which the
// scale checks and maps later (applyScale).
func (w *nodeWalker) grade(v, parent *yaml.Node, path string) (int, string, bool) {
	const want = "high, partial, weak, irrelevant or an integer grade"
	if v == nil {
		w.errorf(w.pos(parent), path, "required: %s", want)
		return 0, "", false
	}
	if v.Kind != yaml.ScalarNode || v.ShortTag() == "!!null" || v.ShortTag() == "!!bool" {
		w.errorf(w.pos(v), path, "expected %s (got %s)", want, yamldoc.Describe(v))
		return 0, "", false
	}
	label := strings.ToLower(strings.TrimSpace(v.Value))
	if g, ok := relevanceLabels[label]; ok {
		return g, label, true
	}
	g, ok := plainnum.Int(v.Value)
	if !ok {
		switch {
		case v.ShortTag() == "!!float":
			w.errorf(w.pos(v), path, "grade must be an integer (got %s)", v.Value)
		case v.ShortTag() == "!!int" || strings.TrimSpace(v.Value) != v.Value:
			w.errorf(w.pos(v), path, "grade must be a plain integer: digits, no sign +, space, _ or base prefix (got %q)", v.Value)
		default:
			w.errorf(w.pos(v), path, "invalid relevance label %q: expected %s", v.Value, want)
		}
		return 0, "", false
	}
	return g, "", true
}

// scope reads the scope fields (ScopeFields) of mapping f: each a
// non-empty string or number. Nil when it has none.
func (w *nodeWalker) scope(f map[string]*yaml.Node, path string) Scope {
	var s Scope
	for _, k := range ScopeFields {
		v := f[k]
		if v == nil {
			continue
		}
		fp := join(path, k)
		if v.Kind != yaml.ScalarNode || v.ShortTag() == "!!null" || v.ShortTag() == "!!bool" || strings.TrimSpace(v.Value) == "" {
			w.errorf(w.pos(v), fp, "expected a non-empty string or number (got %s)", yamldoc.Describe(v))
			continue
		}
		if s == nil {
			s = Scope{}
		}
		s[k] = strings.TrimSpace(v.Value)
	}
	return s
}

// keepExtra keeps a query's fields that are not the format's (extra,
// from openMapping) in its Meta, noting their names in q.extra; a field
// meta already holds is an error.
func (w *nodeWalker) keepExtra(q *Query, extra []*yaml.Node, path string) {
	for i := 0; i+1 < len(extra); i += 2 {
		k, v := extra[i], extra[i+1]
		if _, dup := q.Meta[k.Value]; dup {
			w.errorf(w.pos(k), join(path, k.Value), "also given in meta: keep one")
			continue
		}
		var val any
		if err := v.Decode(&val); err != nil {
			w.errorf(w.pos(v), join(path, k.Value), "unreadable value: %v", err)
			continue
		}
		if q.Meta == nil {
			q.Meta = map[string]any{}
		}
		q.Meta[k.Value] = val
		q.extra = append(q.extra, k.Value)
	}
}

// meta decodes free metadata: any JSON/YAML value, kept as decoded.
func (w *nodeWalker) meta(n *yaml.Node, path string) map[string]any {
	var m map[string]any
	if err := n.Decode(&m); err != nil {
		if n.Kind == yaml.MappingNode {
			// A mapping that does not decode: aliases expanding past
			// yaml.v3's bound (an alias bomb), or keys that are no strings.
			w.errorf(w.pos(n), path, "free metadata that cannot be read: %s", strings.TrimPrefix(err.Error(), "yaml: "))
			return nil
		}
		w.errorf(w.pos(n), path, "expected a mapping of free metadata (got %s)", yamldoc.Describe(n))
		return nil
	}
	return m
}
