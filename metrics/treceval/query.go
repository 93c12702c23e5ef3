package treceval

import (
	"fmt"
	"slices"

	"github.com/fusiontune/fusiontune/internal/trec"
)

// Grades a ranked document carries when the qrels do not grade it.
const (
	// gradeNonPool marks a document absent from the qrels (trec_eval's
	// RELVALUE_NONPOOL).
	gradeNonPool = -1 << 30
	// gradeUnjudged marks a document present in the qrels with a negative
	// grade: pooled but not judged (trec_eval's RELVALUE_UNJUDGED).
	gradeUnjudged = gradeNonPool + 1
)

// query is one query prepared for evaluation: its ranked grades and the
// counts every measure needs. Buffers are reused across queries by a worker.
type query struct {
	id       string
	grades   []int // grade per rank (0-based), or a grade* sentinel
	cumRel   []int // cumRel[i] = relevant documents among the first i
	numRel   int   // qrels documents with grade >= the relevance level
	numNonre int   // qrels documents with 0 <= grade < level (judged non-relevant)
	judged   []int // grades >= 0 of every qrels document, descending
	level    int

	order []trec.Result
	seen  map[string]struct{}
	grade map[string]int // the query's judgments by document id
}

// numRet is the number of retrieved documents.
func (q *query) numRet() int { return len(q.grades) }

// relAt returns the number of relevant documents among the first k ranks
// (k may exceed the number retrieved).
func (q *query) relAt(k int) int {
	if k > len(q.grades) {
		k = len(q.grades)
	}
	if k < 0 {
		return 0
	}
	return q.cumRel[k]
}

func (q *query) isRel(g int) bool { return g >= q.level }

// prepare fills q for one query: sorts results as trec_eval does and looks
// up each document's grade.
func (q *query) prepare(id string, results []trec.Result, judgments []trec.Judgment, level int) error {
	q.id = id
	q.level = level
	q.order = append(q.order[:0], results...)
	slices.SortFunc(q.order, trec.Compare)
	if q.seen == nil {
		q.seen = make(map[string]struct{}, len(results))
		q.grade = make(map[string]int, len(judgments))
	}
	clear(q.seen)
	clear(q.grade)
	for _, j := range judgments {
		q.grade[j.DocNo] = j.Rel
	}
	q.grades = q.grades[:0]
	q.cumRel = append(q.cumRel[:0], 0)
	rel := 0
	for _, r := range q.order {
		if _, dup := q.seen[r.DocNo]; dup {
			return fmt.Errorf("query %q: document %q retrieved twice", id, r.DocNo)
		}
		q.seen[r.DocNo] = struct{}{}
		g, ok := q.grade[r.DocNo]
		switch {
		case !ok:
			g = gradeNonPool
		case g < 0:
			g = gradeUnjudged
		}
		if g >= level {
			rel++
		}
		q.grades = append(q.grades, g)
		q.cumRel = append(q.cumRel, rel)
	}
	q.numRel, q.numNonre = 0, 0
	q.judged = q.judged[:0]
	for _, j := range judgments {
		g := j.Rel
		if g < 0 {
			continue
		}
		q.judged = append(q.judged, g)
		if g >= level {
			q.numRel++
		} else {
			q.numNonre++
		}
	}
	slices.SortFunc(q.judged, func(a, b int) int { return b - a })
	return nil
}
