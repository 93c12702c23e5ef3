package experiments

import (
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/fusiontune/fusiontune/metrics"
)

// Document is a corpus document as resolution sees it: an id, the text
// passage_substring excerpts are matched against and the fields scoped
// judgments compare (see Scope; nil when it has none).
type Document struct {
	ID     string
	Text   string
	Fields map[string]string
}

// Span is where a passage_substring judgment matched: bytes [Start, End) of
// the document's original Text.
type Span struct {
	DocID      string
	Start, End int
	Grade      int
}

// ResolvedQuery holds the judgments of one query against one corpus.
type ResolvedQuery struct {
	ID       string
	Category string
	// Judgments maps each judged document id to its grade, the highest of
	// the query's judgments that hit it.
	Judgments metrics.Judgments
	// Spans lists the matches of the query's passage_substring judgments,
	// every occurrence in every document, in document order.
	Spans []Span
	// Open are the query's doc_id_pattern judgments when there is no
	// corpus: they are matched against the ids the backend returns, each
	// judged in Judgments under its PatternKey (see OpenPattern).
	Open []OpenPattern

	docGrades map[string]int // grades from doc_id and doc_id_pattern judgments
}

// OpenPattern is a doc_id_pattern judgment without a corpus: the set of
// ids it judges is unknown, so it is matched against the ids a backend
// returns. It counts as one relevant item, found when at least one
// returned id matches: its first match takes its grade (and the key
// PatternKey in the ranking), later matches count as unjudged. Recall-type
// metrics are therefore over "at least one match" per pattern.
type OpenPattern struct {
	Pattern string
	Grade   int
	Re      *regexp.Regexp // the whole-id match of Pattern
}

// PatternKey is the judgment key of an open pattern.
func PatternKey(pattern string) string { return "pattern:" + pattern }

// Resolved is a golden set resolved against a corpus.
type Resolved struct {
	Queries  []ResolvedQuery // in golden-set order
	Warnings []Problem       // excerpts found in several documents
	// Missing are the doc_id judgments whose document is not in the
	// corpus, once per query and document, in golden-set order: see
	// CheckMissing.
	Missing []MissingDoc
	byID    map[string]int
	source  string // the golden set's file
}

// MissingDoc is a doc_id judgment of a document the corpus does not hold.
type MissingDoc struct {
	Pos   string // where the judgment is: file:line:col
	Query string
	DocID string
}

// Query returns the resolved query with the given id, or nil.
func (r *Resolved) Query(id string) *ResolvedQuery {
	if i, ok := r.byID[id]; ok {
		return &r.Queries[i]
	}
	return nil
}

// Resolve turns every judgment of gs into graded document ids of docs:
//   - doc_id judges that document; an id not in docs is kept (it still counts
//     for recall) and listed in Missing (see CheckMissing);
//   - doc_id_pattern judges every document whose whole id matches it;
//     a pattern that matches none is an error; without a corpus (docs
//     nil) it becomes an OpenPattern, matched on the ids a backend returns;
//   - passage_substring judges every document that contains the excerpt,
//     comparing case-insensitively with runs of white space collapsed; an
//     excerpt found nowhere is an error naming the query and the excerpt,
//     one found in several documents judges all of them and adds a warning.
//
// A judgment with a Scope (a book, a chapter) looks for its excerpt or
// pattern only in the documents carrying the scope's fields: found only
// outside it is an error saying where it was found.
//
// When several judgments hit one document, the highest grade wins. Every
// error is reported at once, as Problems.
func (gs *GoldenSet) Resolve(docs []Document) (*Resolved, error) {
	l := &problemList{}
	ids := map[string]bool{}
	for _, d := range docs {
		ids[d.ID] = true
	}
	var cx *corpusIndex
	var sf *scopeFilter
	scoped := func() *scopeFilter {
		if sf == nil {
			sf = newScopeFilter(docs)
		}
		return sf
	}
	res := &Resolved{Queries: make([]ResolvedQuery, len(gs.Queries)), byID: map[string]int{}, source: gs.Source}
	for qi := range gs.Queries {
		q := &gs.Queries[qi]
		rq := ResolvedQuery{ID: q.ID, Category: q.Category, Judgments: metrics.Judgments{}, docGrades: map[string]int{}}
		for _, j := range q.Judgments {
			switch {
			case j.DocID != "":
				if _, seen := rq.docGrades[j.DocID]; !ids[j.DocID] && !seen {
					res.Missing = append(res.Missing, MissingDoc{Pos: j.Pos, Query: q.ID, DocID: j.DocID})
				}
				raise(rq.docGrades, j.DocID, j.Grade)
			case j.Pattern != "":
				resolvePattern(l, &rq, j, docs, scoped)
			case j.Substring != "":
				if cx == nil {
					cx = newCorpusIndex(docs, substrings(gs))
				}
				resolveSubstring(l, &rq, j, cx, scoped)
			}
		}
		for id, g := range rq.docGrades {
			raise(rq.Judgments, id, g)
		}
		for _, s := range rq.Spans {
			raise(rq.Judgments, s.DocID, s.Grade)
		}
		res.Queries[qi] = rq
		res.byID[q.ID] = qi
	}
	if err := l.err(); err != nil {
		return nil, err
	}
	res.Warnings = l.warns
	return res, nil
}

// substrings are gs's passage_substring excerpts.
func substrings(gs *GoldenSet) []string {
	var out []string
	for _, q := range gs.Queries {
		for _, j := range q.Judgments {
			if j.Substring != "" {
				out = append(out, j.Substring)
			}
		}
	}
	return out
}

// resolvePattern judges, for query rq, every document of docs whose id
// matches judgment j's doc_id_pattern (whole id); without a corpus (docs
// nil) the pattern becomes an OpenPattern, matched on the ids a backend
// returns. An invalid pattern, or one matching no document, is an error.
func resolvePattern(l *problemList, rq *ResolvedQuery, j Judgment, docs []Document, scoped func() *scopeFilter) {
	re, err := regexp.Compile(`^(?:` + j.Pattern + `)$`)
	if err != nil {
		l.errorf(j.Pos, "doc_id_pattern", "query %q: invalid regular expression %q: %v", rq.ID, j.Pattern, err)
		return
	}
	if docs == nil {
		rq.Open = append(rq.Open, OpenPattern{Pattern: j.Pattern, Grade: j.Grade, Re: re})
		raise(rq.docGrades, PatternKey(j.Pattern), j.Grade)
		return
	}
	n := 0
	var outside []string
	for _, d := range docs {
		if !re.MatchString(d.ID) {
			continue
		}
		if j.Scope != nil && !j.Scope.Matches(d) {
			outside = append(outside, d.ID)
			continue
		}
		raise(rq.docGrades, d.ID, j.Grade)
		n++
	}
	switch {
	case n == 0 && j.Scope != nil:
		l.errorf(j.Pos, "doc_id_pattern", "query %q: pattern %q matches no document id with %s: %s", rq.ID, j.Pattern, j.Scope, scoped().why(j.Scope, outside))
	case n == 0:
		l.errorf(j.Pos, "doc_id_pattern", "query %q: pattern %q matches no document id", rq.ID, j.Pattern)
	case n == len(docs) && n >= minWholeCorpus:
		l.errorf(j.Pos, "doc_id_pattern", "query %q: pattern %q matches every one of the corpus's %d documents: a judgment grading everything tells no ranking apart (narrow the pattern)", rq.ID, j.Pattern, n)
	}
}

// minWholeCorpus is the smallest corpus in which a judgment matching every
// document is refused (in a corpus of one or two it may be meant).
const minWholeCorpus = 3

// resolveSubstring judges, for query rq, every passage of the corpus (cx)
// holding judgment j's passage_substring: found nowhere is an error, in
// several documents a warning (all are judged).
func resolveSubstring(l *problemList, rq *ResolvedQuery, j Judgment, cx *corpusIndex, scoped func() *scopeFilter) {
	spans := cx.find(j.Substring, j.Grade)
	var all []Span
	if j.Scope != nil {
		all, spans = spans, scoped().spans(spans, j.Scope)
	}
	switch hit := distinctDocs(spans); {
	case len(hit) == 0 && j.Scope != nil:
		l.errorf(j.Pos, "passage_substring", "query %q: excerpt %q not found in any document with %s: %s", rq.ID, j.Substring, j.Scope, scoped().why(j.Scope, distinctDocs(all)))
	case len(hit) == 0:
		l.errorf(j.Pos, "passage_substring", "query %q: excerpt %q not found in any document", rq.ID, j.Substring)
	case len(hit) == len(cx.docs) && len(hit) >= minWholeCorpus:
		l.errorf(j.Pos, "passage_substring", "query %q: excerpt %q found in every one of the corpus's %d documents: a judgment grading everything tells no ranking apart (quote a longer excerpt)", rq.ID, j.Substring, len(hit))
	case len(hit) > 1:
		l.warnf(j.Pos, "passage_substring", "query %q: excerpt %q found in %d documents (%s); all are judged", rq.ID, j.Substring, len(hit), abbreviate(hit, 5))
	}
	rq.Spans = append(rq.Spans, spans...)
}

// raise sets m[k] to g unless it already holds a higher grade.
func raise(m map[string]int, k string, g int) {
	if old, ok := m[k]; !ok || g > old {
		m[k] = g
	}
}

func distinctDocs(spans []Span) []string {
	var ids []string
	for i, s := range spans {
		if i == 0 || spans[i-1].DocID != s.DocID {
			ids = append(ids, s.DocID)
		}
	}
	return ids
}

// corpusIndex finds excerpts in a corpus quickly. Each document is
// normalized once; a posting list per space-separated token narrows an
// excerpt's candidates to the documents holding its rarest inner token
// (inner tokens of a match are whole tokens of the document, the first and
// last may be partial), so a lookup scans a few documents, not all. Only
// the inner tokens of the excerpts to find get a posting list.
type corpusIndex struct {
	docs     []Document
	norm     []string
	postings map[string][]int32
	// orig holds, per document, its normalization's byte offsets into
	// its text (normalize with offsets), made when an excerpt first
	// matches in it.
	orig map[int32][]int32
}

// newCorpusIndex indexes docs for finding excerpts.
func newCorpusIndex(docs []Document, excerpts []string) *corpusIndex {
	cx := &corpusIndex{docs: docs, norm: make([]string, len(docs)), postings: map[string][]int32{}, orig: map[int32][]int32{}}
	for _, ex := range excerpts {
		n, _ := normalize(ex, false)
		if toks := strings.Split(n, " "); len(toks) >= 3 {
			for _, t := range toks[1 : len(toks)-1] {
				cx.postings[t] = nil
			}
		}
	}
	// The documents are normalized and indexed in parts side by side,
	// each part's posting lists appended in document order.
	parts := make([]map[string][]int32, min(indexParts, max(1, len(docs)/indexPartMin)))
	var wg sync.WaitGroup
	for k := range parts {
		lo, hi := k*len(docs)/len(parts), (k+1)*len(docs)/len(parts)
		wg.Go(func() { parts[k] = cx.indexDocs(lo, hi) })
	}
	wg.Wait()
	for _, part := range parts {
		for tok, p := range part {
			cx.postings[tok] = append(cx.postings[tok], p...)
		}
	}
	return cx
}

// indexParts is how many parts newCorpusIndex indexes side by side, of
// at least indexPartMin documents each.
const indexParts, indexPartMin = 2, 64

// indexDocs normalizes documents lo to hi and returns the posting lists
// of the tokens cx.postings holds (its keys are only read meanwhile).
func (cx *corpusIndex) indexDocs(lo, hi int) map[string][]int32 {
	out := map[string][]int32{}
	for i := lo; i < hi; i++ {
		n, _ := normalize(cx.docs[i].Text, false)
		cx.norm[i] = n
		for tok := range strings.SplitSeq(n, " ") {
			if _, ok := cx.postings[tok]; !ok {
				continue
			}
			if p := out[tok]; len(p) == 0 || p[len(p)-1] != int32(i) {
				out[tok] = append(p, int32(i))
			}
		}
	}
	return out
}

// find returns every occurrence of excerpt, ordered by document, then offset.
func (cx *corpusIndex) find(excerpt string, grade int) []Span {
	ex, _ := normalize(excerpt, false)
	if ex == "" {
		return nil
	}
	var cands []int32
	toks := strings.Split(ex, " ")
	if len(toks) >= 3 {
		cands = cx.postings[toks[1]]
		for _, t := range toks[2 : len(toks)-1] {
			if p := cx.postings[t]; len(p) < len(cands) {
				cands = p
			}
		}
	} else {
		cands = make([]int32, len(cx.docs))
		for i := range cands {
			cands[i] = int32(i)
		}
	}
	var spans []Span
	for _, di := range cands {
		n := cx.norm[di]
		for from := 0; ; {
			k := strings.Index(n[from:], ex)
			if k < 0 {
				break
			}
			orig, ok := cx.orig[di]
			if !ok {
				_, orig = normalize(cx.docs[di].Text, true)
				cx.orig[di] = orig
			}
			s, e := originalSpan(cx.docs[di].Text, orig, from+k, from+k+len(ex))
			spans = append(spans, Span{DocID: cx.docs[di].ID, Start: s, End: e, Grade: grade})
			from += k + len(ex)
		}
	}
	sort.SliceStable(spans, func(a, b int) bool { return spans[a].DocID < spans[b].DocID })
	return spans
}

// Chunk is a passage of a document: bytes [Start, End) of its Text.
type Chunk struct {
	ID         string
	DocID      string
	Start, End int
}

// ChunkIndex groups chunks by document for ChunkJudgments.
type ChunkIndex map[string][]Chunk

// IndexChunks groups chunks by document id.
func IndexChunks(chunks []Chunk) ChunkIndex {
	ci := ChunkIndex{}
	for _, c := range chunks {
		ci[c.DocID] = append(ci[c.DocID], c)
	}
	return ci
}

// ChunkJudgments grades the chunks of ci for passage-level scoring. A chunk
// is judged when it overlaps a Span of the query (shares at least one byte:
// chunk.Start < span.End and span.Start < chunk.End); its grade is the
// highest of the spans it overlaps. A document judged by doc_id or
// doc_id_pattern is judged as a whole, so each of its chunks takes that
// grade too (when both apply, the higher wins). Chunks that overlap nothing
// judged are left out, so the same golden set serves any chunk size.
func (q *ResolvedQuery) ChunkJudgments(ci ChunkIndex) metrics.Judgments {
	out := metrics.Judgments{}
	for doc, g := range q.docGrades {
		for _, c := range ci[doc] {
			raise(out, c.ID, g)
		}
	}
	for _, s := range q.Spans {
		for _, c := range ci[s.DocID] {
			if c.Start < s.End && s.Start < c.End {
				raise(out, c.ID, s.Grade)
			}
		}
	}
	return out
}
