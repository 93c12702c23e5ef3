package experiments

import (
	"bytes"
	"fmt"
	"sort"
	"strings"

	"github.com/fusiontune/fusiontune/internal/trec"
	"gopkg.in/yaml.v3"
)

var judgmentFields = []string{"query_id", "doc_id", "passage_substring", "doc_id_pattern", "grade"}

// FileJudgment is one judgment of a separate judgments file, with the query
// it belongs to.
type FileJudgment struct {
	QueryID string
	Judgment

	idField string // the name of the query id in the file, for problems
}

// ParseJudgments parses a separate judgments file held in data: JSONL lines
// {query_id, doc_id|passage_substring|doc_id_pattern, grade} when its first
// non-blank character is '{', TREC qrels (`qid iter docno rel`) otherwise.
// grade takes the same values as a native relevance. Grades are checked
// against the grade scale, and negative ones read as 0 (judged
// non-relevant, as in trec_eval), when the golden set is loaded (see
// GradeScale). file names the input in problems.
func ParseJudgments(file string, data []byte) ([]FileJudgment, error) {
	l := &problemList{}
	js := parseJudgments(file, data, l)
	if err := l.err(); err != nil {
		return nil, err
	}
	return js, nil
}

func parseJudgments(file string, data []byte, l *problemList) []FileJudgment {
	t := bytes.TrimLeft(data, " \t\r\n\ufeff")
	if len(t) > 0 && t[0] == '{' {
		return parseJudgmentsJSONL(file, data, l)
	}
	qrels, err := trec.ReadQrels(bytes.NewReader(data), file)
	if err != nil {
		l.errs = append(l.errs, Problem{Msg: err.Error()})
		return nil
	}
	// Judgments keep file order: trec.Qrels is a map, so each (qid, docno)
	// is looked up on its line.
	lines := qrelsLines(data)
	type lineJudgment struct {
		line int
		fj   FileJudgment
	}
	var all []lineJudgment
	for qid, docs := range qrels {
		for doc, g := range docs {
			line := lines[[2]string{qid, doc}]
			pos := fmt.Sprintf("%s:%d", file, line)
			fj := FileJudgment{QueryID: qid, Judgment: Judgment{DocID: doc, Grade: g, Pos: pos, gradeField: "rel"}, idField: "qid"}
			all = append(all, lineJudgment{line, fj})
		}
	}
	sort.Slice(all, func(a, b int) bool { return all[a].line < all[b].line })
	out := make([]FileJudgment, len(all))
	for i, lj := range all {
		out[i] = lj.fj
	}
	return out
}

// qrelsLines maps (qid, docno) to its line in qrels data that trec.ReadQrels
// accepted, so judgments and problems can name their line.
func qrelsLines(data []byte) map[[2]string]int {
	lines := map[[2]string]int{}
	forEachLine(data, func(lineNo int, line []byte) {
		switch f := strings.Fields(string(line)); len(f) {
		case 4:
			lines[[2]string{f[0], f[2]}] = lineNo
		case 3: // BEIR qrels: query-id corpus-id score
			lines[[2]string{f[0], f[1]}] = lineNo
		}
	})
	return lines
}

func parseJudgmentsJSONL(file string, data []byte, l *problemList) []FileJudgment {
	w := &nodeWalker{file: file, problemList: l}
	var out []FileJudgment
	w.jsonLines(data, judgmentFields, func(f map[string]*yaml.Node, n *yaml.Node) {
		qid := w.str(f["query_id"], "query_id")
		switch {
		case strings.TrimSpace(qid) == "":
			w.errorf(w.pos(valueOr(f["query_id"], n)), "query_id", "required: a non-empty query id")
			qid = ""
		case qid != strings.TrimSpace(qid):
			w.errorf(w.pos(f["query_id"]), "query_id", "query id %q %s", qid, spaceAround)
			qid = ""
		}
		j, ok := w.judgment(f, n, "", "grade")
		if ok && qid != "" {
			out = append(out, FileJudgment{QueryID: qid, Judgment: j, idField: "query_id"})
		}
	})
	return out
}

// forEachLine calls fn with each non-blank line of data and its 1-based number.
func forEachLine(data []byte, fn func(lineNo int, line []byte)) {
	for lineNo := 1; len(data) > 0; lineNo++ {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		line = bytes.TrimRight(line, "\r")
		if len(bytes.TrimSpace(line)) > 0 {
			fn(lineNo, line)
		}
	}
}

// mergeJudgmentsFile adds the judgments of path to the queries of gs. A
// judgment for a query gs lacks is an error. With dropUnjudged (TREC
// topics), queries left without judgments are removed, with one warning.
func mergeJudgmentsFile(gs *GoldenSet, path string, dropUnjudged bool, in *inputs, l *problemList) error {
	data, err := in.readLines(path)
	if err != nil {
		return err
	}
	byID := map[string]int{}
	for i, q := range gs.Queries {
		if _, dup := byID[q.ID]; !dup {
			byID[q.ID] = i
		}
	}
	for _, fj := range parseJudgments(path, data, l) {
		i, ok := byID[fj.QueryID]
		if !ok {
			l.errorf(fj.Pos, fj.idField, "judgment for unknown query %q", fj.QueryID)
			continue
		}
		gs.Queries[i].Judgments = append(gs.Queries[i].Judgments, fj.Judgment)
	}
	if !dropUnjudged {
		return nil
	}
	kept := gs.Queries[:0]
	var dropped []string
	for _, q := range gs.Queries {
		if len(q.Judgments) == 0 && q.ExpectedRouting == "" {
			dropped = append(dropped, q.ID)
			continue
		}
		kept = append(kept, q)
	}
	gs.Queries = kept
	if len(dropped) > 0 {
		l.warnf(gs.Source, "", "topics without judgments skipped (%d): %s", len(dropped), abbreviate(dropped, 5))
	}
	return nil
}

func abbreviate(ids []string, n int) string {
	if len(ids) <= n {
		return strings.Join(ids, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(ids[:n], ", "), len(ids)-n)
}
