package trec

import (
	"bufio"
	"fmt"
	"io"
	"maps"
	"slices"

	"github.com/fusiontune/fusiontune/internal/plainnum"
)

// Qrels holds graded judgments: query id -> document id -> relevance grade.
// Grades are the integers of the qrels file; trec_eval treats negative
// grades as judged non-relevant, and so do the evaluators of this project.
type Qrels map[string]map[string]int

// NumJudged returns the number of judgments in q.
func (q Qrels) NumJudged() int {
	n := 0
	for _, docs := range q {
		n += len(docs)
	}
	return n
}

// ReadQrels parses qrels lines `qid iter docno rel` from r. file names the
// input in error messages. Blank lines are skipped; the iteration column is
// ignored, as trec_eval does. A document judged twice for the same query, a
// file without a single judgment, an id that is not UTF-8 or holds a control
// character, and a grade written other than as a plain integer ("+1") are
// errors. A UTF-8 byte-order mark at the start is skipped.
//
// A file whose first non-blank line is BEIR's header `query-id corpus-id
// score` is read as BEIR qrels (a qrels/*.tsv file): three columns per
// line, query id, document id and the integer grade.
func ReadQrels(r io.Reader, file string) (Qrels, error) {
	j, err := ReadJudgments(r, file)
	if err != nil {
		return nil, err
	}
	return j.Qrels(), nil
}

// judgment reads the n fields f of one qrels line (text, for messages):
// "qid iter docno rel", or with beir "query-id corpus-id score". The ids
// must be valid (checkID), the grade a plain integer.
func judgment(f *[5][]byte, n int, beir bool, text []byte) (qid, doc []byte, rel int, err error) {
	qidF, docF, relF := f[0], f[2], f[3]
	switch {
	case beir && n != 3:
		return nil, nil, 0, fmt.Errorf("expected 3 fields \"query-id corpus-id score\" (BEIR qrels, as the header says; got %q)", text)
	case beir:
		docF, relF = f[1], f[2]
	case n != 4:
		return nil, nil, 0, fmt.Errorf("expected 4 fields \"qid iter docno rel\" (got %q); BEIR qrels start with the header line \"query-id corpus-id score\"", text)
	}
	for _, id := range [...]struct {
		what string
		b    []byte
	}{{"query id", qidF}, {"document id", docF}} {
		if why := checkID(id.b); why != "" {
			return nil, nil, 0, fmt.Errorf("%s %q %s", id.what, id.b, why)
		}
	}
	rel, ok := plainnum.Int(unsafeString(relF)) // relF is not kept
	if !ok {
		return nil, nil, 0, fmt.Errorf("relevance must be an integer (got %q)", relF)
	}
	return qidF, docF, rel, nil
}

// ReadQrelsFile opens path and parses it with ReadQrels.
func ReadQrelsFile(path string) (Qrels, error) {
	j, err := ReadJudgmentsFile(path)
	if err != nil {
		return nil, err
	}
	return j.Qrels(), nil
}

// fields splits b at ASCII whitespace into out and returns the number of
// fields found. When b has more fields than out, it returns len(out)+1 so
// callers can report a wrong field count without allocating.
func fields(b []byte, out [][]byte) int {
	n := 0
	i := 0
	for i < len(b) {
		for i < len(b) && isSpace(b[i]) {
			i++
		}
		if i == len(b) {
			break
		}
		j := i
		for j < len(b) && !isSpace(b[j]) {
			j++
		}
		if n == len(out) {
			return n + 1
		}
		out[n] = b[i:j]
		n++
		i = j
	}
	return n
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f'
}

// WriteQrels writes q as qrels lines `qid 0 docno rel`: queries in
// ascending id order, each query's documents in ascending id order, so
// the same judgments give the same bytes. Ids must be non-empty and hold no
// whitespace.
func WriteQrels(w io.Writer, q Qrels) error {
	bw := bufio.NewWriter(w)
	for _, qid := range slices.Sorted(maps.Keys(q)) {
		if err := checkField("query id", qid); err != nil {
			return fmt.Errorf("write qrels: %w", err)
		}
		for _, doc := range slices.Sorted(maps.Keys(q[qid])) {
			if err := checkField("document id", doc); err != nil {
				return fmt.Errorf("write qrels: query %q: %w", qid, err)
			}
			fmt.Fprintf(bw, "%s 0 %s %d\n", qid, doc, q[qid][doc])
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write qrels: %w", err)
	}
	return nil
}
