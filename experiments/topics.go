package experiments

import (
	"bytes"
	"fmt"
	"strings"

	"gopkg.in/yaml.v3"
)

var topicFields = []string{"_id", "id", "text", "query", "category", "language", "difficulty", "metadata"}

// ParseTopics parses a topics file held in data: JSONL lines
// {_id|id, text|query[, category, language, difficulty, metadata]} when its
// first non-blank character is '{', else TSV lines `id<TAB>text`. Blank
// lines are skipped; metadata is ignored. file names the input in problems.
func ParseTopics(file string, data []byte) ([]Query, error) {
	l := &problemList{}
	qs := parseTopics(file, data, l)
	if err := l.err(); err != nil {
		return nil, err
	}
	return qs, nil
}

func parseTopics(file string, data []byte, l *problemList) []Query {
	t := bytes.TrimLeft(data, " \t\r\n\ufeff")
	if len(t) > 0 && t[0] == '{' {
		return parseTopicsJSONL(file, data, l)
	}
	var qs []Query
	forEachLine(data, func(lineNo int, line []byte) {
		pos := fmt.Sprintf("%s:%d:1", file, lineNo)
		id, text, ok := strings.Cut(string(line), "\t")
		if !ok {
			l.errorf(pos, "", "expected `id<TAB>text` (got %q)", line)
			return
		}
		text = strings.TrimSpace(text) // the id is not: checkIDs refuses surrounding space
		if strings.TrimSpace(id) == "" {
			l.errorf(pos, "id", "required: a non-empty query id")
			return
		}
		if id != strings.TrimSpace(id) {
			l.errorf(pos, "id", "query id %q %s", id, spaceAround)
			return
		}
		if text == "" {
			l.errorf(pos, "text", "required: a non-empty query text")
			return
		}
		qs = append(qs, Query{ID: id, Text: text, Pos: pos})
	})
	return qs
}

func parseTopicsJSONL(file string, data []byte, l *problemList) []Query {
	w := &nodeWalker{file: file, problemList: l}
	var qs []Query
	w.jsonLines(data, topicFields, func(f map[string]*yaml.Node, n *yaml.Node) {
		id, idOK := w.oneOf(f, n, "_id", "id")
		text, textOK := w.oneOf(f, n, "text", "query")
		q := Query{
			ID:       id, // not trimmed: checkIDs refuses surrounding space
			Text:     text,
			Category: w.str(f["category"], "category"),
			Language: w.str(f["language"], "language"),
			// difficulty is reported per value, like a native query's
			Difficulty: w.str(f["difficulty"], "difficulty"),
			Pos:        w.pos(n),
		}
		if idOK && strings.TrimSpace(q.ID) == "" {
			w.errorf(w.pos(n), "_id", "required: a non-empty query id")
			return
		}
		if idOK && q.ID != strings.TrimSpace(q.ID) {
			w.errorf(w.pos(n), "_id", "query id %q %s", q.ID, spaceAround)
			return
		}
		if textOK && strings.TrimSpace(q.Text) == "" {
			w.errorf(w.pos(n), "text", "required: a non-empty query text")
			return
		}
		if idOK && textOK {
			qs = append(qs, q)
		}
	})
	return qs
}

// oneOf reads the string field given under exactly one of the names a or b.
func (w *nodeWalker) oneOf(f map[string]*yaml.Node, n *yaml.Node, a, b string) (string, bool) {
	switch {
	case f[a] != nil && f[b] != nil:
		w.errorf(w.pos(f[b]), b, "give %s or %s, not both", a, b)
		return "", false
	case f[a] != nil:
		return w.str(f[a], a), true
	case f[b] != nil:
		return w.str(f[b], b), true
	}
	w.errorf(w.pos(n), a, "required field missing (or %s)", b)
	return "", false
}

func loadTopicsSet(path string, in *inputs, l *problemList) (*GoldenSet, error) {
	data, err := in.readLines(path)
	if err != nil {
		return nil, err
	}
	qs := parseTopics(path, data, l)
	// A repeated topic id is an error here, before judgments are merged:
	// the judgments would all land on the first, and the second would be
	// dropped as "without judgments".
	first := map[string]string{}
	kept := qs[:0]
	for _, q := range qs {
		if at, dup := first[q.ID]; dup {
			l.errorf(q.Pos, "id", "duplicate topic id %q (first at %s)", q.ID, at)
			continue
		}
		first[q.ID] = q.Pos
		kept = append(kept, q)
	}
	return &GoldenSet{Queries: kept, Source: path}, nil
}
