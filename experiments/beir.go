package experiments

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/fusiontune/fusiontune/internal/plainnum"
)

// A BEIR folder holds corpus.jsonl, queries.jsonl and qrels/<split>.tsv. The
// golden set is the queries judged in the split's qrels, in queries.jsonl
// order; queries.jsonl usually lists the queries of every split, so the
// others are skipped silently. The corpus is the engine's to load.

// BEIRCorpusPath returns the corpus file of the BEIR folder dir.
func BEIRCorpusPath(dir string) string { return filepath.Join(dir, "corpus.jsonl") }

func loadBEIR(dir, split string, in *inputs, l *problemList) (*GoldenSet, error) {
	if split == "" {
		split = DefaultBEIRSplit
	}
	qpath := filepath.Join(dir, "queries.jsonl")
	qdata, err := in.readLines(qpath)
	if err != nil {
		return nil, err
	}
	rpath := filepath.Join(dir, "qrels", split+".tsv")
	rdata, err := in.readLines(rpath)
	if err != nil {
		return nil, err
	}
	topics := parseTopics(qpath, qdata, l)
	judged := parseBEIRQrels(rpath, rdata, l)
	byID := map[string][]Judgment{}
	for _, fj := range judged {
		byID[fj.QueryID] = append(byID[fj.QueryID], fj.Judgment)
	}
	gs := &GoldenSet{Source: dir}
	seen := map[string]bool{}
	for _, q := range topics {
		if seen[q.ID] {
			l.errorf(q.Pos, "_id", "duplicate query id %q", q.ID)
			continue
		}
		seen[q.ID] = true
		if js := byID[q.ID]; js != nil {
			q.Judgments = js
			gs.Queries = append(gs.Queries, q)
		}
	}
	for _, fj := range judged {
		if !seen[fj.QueryID] {
			l.errorf(fj.Pos, "query-id", "judgment for query %q, which %s lacks", fj.QueryID, qpath)
		}
	}
	return gs, nil
}

// ParseBEIRQrels parses a BEIR qrels file held in data: an optional header
// line starting with "query-id", then `query-id<TAB>corpus-id<TAB>score`
// lines. Scores are checked against the grade scale, and negative ones
// read as 0 (judged non-relevant), when the golden set is loaded (see
// GradeScale); a document judged twice for one query is an error.
func ParseBEIRQrels(file string, data []byte) ([]FileJudgment, error) {
	l := &problemList{}
	js := parseBEIRQrels(file, data, l)
	if err := l.err(); err != nil {
		return nil, err
	}
	return js, nil
}

func parseBEIRQrels(file string, data []byte, l *problemList) []FileJudgment {
	var out []FileJudgment
	seen := map[[2]string]int{}
	first := true
	forEachLine(data, func(lineNo int, line []byte) {
		f := strings.Fields(string(line))
		if first {
			first = false
			if len(f) > 0 && strings.EqualFold(f[0], "query-id") {
				return
			}
		}
		pos := fmt.Sprintf("%s:%d", file, lineNo)
		if len(f) != 3 {
			l.errorf(pos, "", "expected 3 fields `query-id corpus-id score` (got %q)", bytes.TrimSpace(line))
			return
		}
		g, ok := plainnum.Int(f[2])
		if !ok {
			l.errorf(pos, "score", "must be a plain integer (got %q)", f[2])
			return
		}
		key := [2]string{f[0], f[1]}
		if prev, dup := seen[key]; dup {
			l.errorf(pos, "corpus-id", "document %q judged twice for query %q (first on line %d)", f[1], f[0], prev)
			return
		}
		seen[key] = lineNo
		out = append(out, FileJudgment{QueryID: f[0], Judgment: Judgment{DocID: f[1], Grade: g, Pos: pos, gradeField: "score"}})
	})
	if len(out) == 0 && len(l.errs) == 0 {
		l.errorf(file, "", "no judgments: the file holds no qrels line \"query-id corpus-id score\"")
	}
	return out
}
