package experiments

import (
	"fmt"
	"sort"
	"strings"

	"github.com/fusiontune/fusiontune/internal/suggest"
)

// MaxMissingListed caps how many missing judged documents CheckMissing
// lists one by one; the rest are counted.
const MaxMissingListed = 20

// CheckMissing judges r's doc_id judgments of documents docs does not
// hold: a judged document that is not in the corpus can never be
// retrieved, so every score is lower than it should be. Unless allow is
// set, that is an error listing each one (its position, query and id, at
// most MaxMissingListed, then how many more) with the closest corpus ids
// by edit distance as a did-you-mean ("doc-12" for "doc_12"). With allow,
// the same finding is a warning with the counts. Both are nil when every
// judged document is in the corpus.
func (r *Resolved) CheckMissing(docs []Document, allow bool) (warning, err error) {
	if len(r.Missing) == 0 {
		return nil, nil
	}
	ids := distinctMissing(r.Missing)
	if allow {
		return fmt.Errorf("judged documents not in the corpus: %d (%d distinct ids: %s), kept since dataset.allow_missing_docs is true: they count as relevant but can never be retrieved; judged documents found: %d",
			len(r.Missing), len(ids), abbreviate(ids, 5), r.JudgedFound()), nil
	}
	corpus := make([]string, len(docs))
	for i, d := range docs {
		corpus[i] = d.ID
	}
	var ps Problems
	for _, m := range r.Missing[:min(len(r.Missing), MaxMissingListed)] {
		msg := fmt.Sprintf("query %q: document %q is not in the corpus", m.Query, m.DocID)
		if near := closest(m.DocID, corpus, 3); len(near) > 0 {
			msg += fmt.Sprintf(" (did you mean %s?)", quoteAll(near))
		}
		ps = append(ps, Problem{Pos: m.Pos, Field: "doc_id", Msg: msg})
	}
	summary := fmt.Sprintf("judged documents not in the corpus: %d (%d distinct ids, in a corpus of %d documents)", len(r.Missing), len(ids), len(docs))
	if more := len(r.Missing) - MaxMissingListed; more > 0 {
		summary += fmt.Sprintf("; %d more than listed", more)
	}
	ps = append(ps, Problem{Pos: r.source, Msg: summary + "; fix the ids, or set dataset.allow_missing_docs: true to score with them anyway"})
	return nil, ps
}

// JudgedFound is how many judged documents, counted per query, the corpus
// holds.
func (r *Resolved) JudgedFound() int {
	n := 0
	for _, q := range r.Queries {
		n += len(q.Judgments)
	}
	return n - len(r.Missing)
}

func distinctMissing(ms []MissingDoc) []string {
	seen := map[string]bool{}
	var ids []string
	for _, m := range ms {
		if !seen[m.DocID] {
			seen[m.DocID] = true
			ids = append(ids, m.DocID)
		}
	}
	return ids
}

func quoteAll(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = fmt.Sprintf("%q", s)
	}
	return strings.Join(q, " or ")
}

// closest returns up to n of candidates nearest to word by edit distance
// (suggest.Distance: Levenshtein, in runes), nearest first, ties by id; only those within a
// third of word's length (at least 2 edits) are close enough to suggest.
func closest(word string, candidates []string, n int) []string {
	limit := max(2, len(word)/3)
	type near struct {
		id string
		d  int
	}
	var hits []near
	for _, c := range candidates {
		if abs(len(c)-len(word)) > limit {
			continue
		}
		if d := suggest.Distance(word, c); d <= limit {
			hits = append(hits, near{c, d})
		}
	}
	sort.Slice(hits, func(a, b int) bool {
		if hits[a].d != hits[b].d {
			return hits[a].d < hits[b].d
		}
		return hits[a].id < hits[b].id
	})
	out := make([]string, 0, n)
	for _, h := range hits[:min(n, len(hits))] {
		out = append(out, h.id)
	}
	return out
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
