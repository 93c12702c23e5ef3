package judge

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/fusiontune/fusiontune/tuner/judging/labels"
)

// Formats of the files people label.
const (
	FormatTSV   = "tsv"
	FormatJSONL = "jsonl"
)

// tsvColumns is the header of an exported TSV: the ids, the two columns a
// person fills in, then the texts to read.
var tsvColumns = []string{"dataset", "query", "doc", "grade", "rationale", "query_text", "doc_title", "doc_text"}

// humanLine is one line of an exported (and, filled in, imported) JSONL.
type humanLine struct {
	Dataset   string           `json:"dataset"`
	Query     string           `json:"query"`
	Doc       string           `json:"doc"`
	Grade     *json.RawMessage `json:"grade"`
	Rationale string           `json:"rationale"`
	QueryText string           `json:"query_text"`
	DocTitle  string           `json:"doc_title"`
	DocText   string           `json:"doc_text"`
}

// ExportPairs writes pairs of dataset for people to label: format FormatTSV
// (a header row, then dataset, query, doc, an empty grade and rationale,
// query text, document title and text; tabs and line breaks in texts become
// spaces) or FormatJSONL (the same fields, grade null).
func ExportPairs(w io.Writer, dataset string, pairs []Pair, format string) error {
	bw := bufio.NewWriter(w)
	switch format {
	case FormatTSV:
		bw.WriteString(strings.Join(tsvColumns, "\t") + "\n")
		for _, p := range pairs {
			cells := []string{dataset, p.Query, p.Doc, "", "", cell(p.QueryText), cell(p.DocTitle), cell(p.DocText)}
			bw.WriteString(strings.Join(cells, "\t") + "\n")
		}
	case FormatJSONL:
		enc := json.NewEncoder(bw)
		enc.SetEscapeHTML(false)
		null := json.RawMessage("null")
		for _, p := range pairs {
			if err := enc.Encode(humanLine{Dataset: dataset, Query: p.Query, Doc: p.Doc, Grade: &null,
				QueryText: p.QueryText, DocTitle: p.DocTitle, DocText: p.DocText}); err != nil {
				return fmt.Errorf("export pairs: %w", err)
			}
		}
	default:
		return fmt.Errorf("export pairs: unknown format %q (want %s or %s)", format, FormatTSV, FormatJSONL)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("export pairs: %w", err)
	}
	return nil
}

// cell makes text one TSV cell.
func cell(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\t' || r == '\n' || r == '\r' {
			return ' '
		}
		return r
	}, s)
}

// Filled is what ReadFilled read: the labels, and how many rows were left
// unlabelled (an empty grade).
type Filled struct {
	Labels  []labels.Label
	Skipped int
}

// ReadFilled reads a file ExportPairs wrote, once a person filled in grades:
// JSONL when it starts with '{', TSV with the export's header otherwise
// (columns may be reordered; dataset, query, doc and grade are required,
// rationale optional, the texts ignored). Rows with an empty grade (or
// null) are skipped and counted. Every label gets judge, source human and
// time t. Grades must be integers 0..maxGrade. Every problem is listed as
// file:line: detail; on error nothing is returned.
func ReadFilled(r io.Reader, file, judge string, maxGrade int, t time.Time) (Filled, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return Filled{}, fmt.Errorf("read %s: %w", file, err)
	}
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	p := &filledParser{file: file, judge: judge, maxGrade: maxGrade, t: t.UTC()}
	if trimmed := bytes.TrimLeft(data, " \t\r\n"); len(trimmed) > 0 && trimmed[0] == '{' {
		p.jsonl(data)
	} else {
		p.tsv(data)
	}
	if len(p.errs) > 0 {
		return Filled{}, errors.Join(p.errs...)
	}
	return p.out, nil
}

type filledParser struct {
	file, judge string
	maxGrade    int
	t           time.Time
	out         Filled
	errs        []error
}

func (p *filledParser) bad(line int, format string, args ...any) {
	p.errs = append(p.errs, fmt.Errorf("%s:%d: %s", p.file, line, fmt.Sprintf(format, args...)))
}

// add checks one filled row; grade "" is a skipped row.
func (p *filledParser) add(line int, dataset, query, doc, grade, rationale string) {
	if strings.TrimSpace(grade) == "" {
		p.out.Skipped++
		return
	}
	g, err := strconv.Atoi(strings.TrimSpace(grade))
	if err != nil || g < 0 || g > p.maxGrade {
		p.bad(line, "grade %q: want an integer in 0..%d (or empty to skip the row)", grade, p.maxGrade)
		return
	}
	l := labels.Label{Dataset: dataset, Query: query, Doc: doc, Grade: g, Judge: p.judge, Source: labels.SourceHuman,
		Time: p.t, Rationale: strings.TrimSpace(rationale)}
	if err := l.Validate(); err != nil {
		p.bad(line, "%v", err)
		return
	}
	p.out.Labels = append(p.out.Labels, l)
}

func (p *filledParser) tsv(data []byte) {
	lines := strings.Split(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n")
	if len(lines) == 0 || strings.TrimSpace(lines[0]) == "" {
		p.bad(1, "empty: want the header %q", strings.Join(tsvColumns, "\t"))
		return
	}
	header := strings.Split(lines[0], "\t")
	col := map[string]int{}
	for i, h := range header {
		col[strings.TrimSpace(h)] = i
	}
	var missing []string
	for _, need := range []string{"dataset", "query", "doc", "grade"} {
		if _, ok := col[need]; !ok {
			missing = append(missing, need)
		}
	}
	if len(missing) > 0 {
		p.bad(1, "header lacks %s (want tab-separated columns %s)", strings.Join(missing, ", "), strings.Join(tsvColumns, ", "))
		return
	}
	get := func(cells []string, name string) string {
		if i, ok := col[name]; ok && i < len(cells) {
			return cells[i]
		}
		return ""
	}
	for i, text := range lines[1:] {
		line := i + 2
		if strings.TrimSpace(text) == "" {
			continue
		}
		cells := strings.Split(text, "\t")
		if len(cells) > len(header) {
			p.bad(line, "%d cells, the header has %d (a tab inside a cell?)", len(cells), len(header))
			continue
		}
		p.add(line, get(cells, "dataset"), get(cells, "query"), get(cells, "doc"), get(cells, "grade"), get(cells, "rationale"))
	}
}

func (p *filledParser) jsonl(data []byte) {
	for i, text := range bytes.Split(data, []byte("\n")) {
		line := i + 1
		text = bytes.TrimSpace(text)
		if len(text) == 0 {
			continue
		}
		dec := json.NewDecoder(bytes.NewReader(text))
		dec.DisallowUnknownFields()
		var h humanLine
		if err := dec.Decode(&h); err != nil {
			p.bad(line, "not an exported pair {\"dataset\",\"query\",\"doc\",\"grade\",...}: %v", err)
			continue
		}
		grade := ""
		if h.Grade != nil && !slices.Equal(*h.Grade, []byte("null")) {
			var g any
			if err := json.Unmarshal(*h.Grade, &g); err != nil {
				p.bad(line, "grade: %v", err)
				continue
			}
			switch v := g.(type) {
			case float64:
				grade = strconv.FormatFloat(v, 'f', -1, 64)
			case string:
				grade = v
			default:
				grade = string(*h.Grade)
			}
		}
		p.add(line, h.Dataset, h.Query, h.Doc, grade, h.Rationale)
	}
}
