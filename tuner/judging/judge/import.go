package judge

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/fusiontune/fusiontune/internal/trec"
	"github.com/fusiontune/fusiontune/tuner/judging/labels"
)

// The kinds of file Import reads (ImportKind).
const (
	// KindLabels is native labels JSONL: objects with judge and source.
	KindLabels = "labels"
	// KindFilled is a filled export (ExportPairs): JSONL without judge and
	// source, or TSV with the export's header.
	KindFilled = "filled"
	// KindQrels is TREC qrels or BEIR tsv.
	KindQrels = "qrels"
)

// ImportKind tells the kinds of file Import reads apart by their first
// line: KindLabels, KindFilled, else KindQrels.
func ImportKind(data []byte) string {
	t := bytes.TrimLeft(bytes.TrimPrefix(data, []byte("\ufeff")), " \t\r\n")
	first, _, _ := bytes.Cut(t, []byte("\n"))
	if len(first) > 0 && first[0] == '{' {
		var keys map[string]json.RawMessage
		if json.Unmarshal(first, &keys) == nil {
			_, j := keys["judge"]
			_, s := keys["source"]
			if j && s {
				return KindLabels
			}
		}
		return KindFilled
	}
	cols := strings.Split(strings.TrimSpace(string(first)), "\t")
	if slices.Contains(cols, "grade") && slices.Contains(cols, "doc") {
		return KindFilled
	}
	return KindQrels
}

// ImportSpec says how to read a file of labelled pairs.
type ImportSpec struct {
	// Rules are what every label must satisfy (the dataset, its queries,
	// its corpus's documents, the scale, one grade per pair).
	Rules labels.Rules
	// Judge names who labelled a filled export or qrels file, Source the
	// qrels labels' source (native labels carry both).
	Judge, Source string
	// Time stamps the labels of a filled export or qrels file.
	Time time.Time
}

// Imported is what Import read.
type Imported struct {
	Labels []labels.Label
	// Skipped counts a filled export's rows without a grade.
	Skipped int
}

// Import reads the labels of data (file path, of kind ImportKind(data))
// and checks every one against the spec's Rules. Any problem fails the
// whole file, naming every problem.
func Import(data []byte, path string, s ImportSpec) (Imported, error) {
	var im Imported
	switch ImportKind(data) {
	case KindLabels:
		ls, err := labels.ReadJSONL(bytes.NewReader(data), path)
		if err != nil {
			return im, err
		}
		im.Labels = ls
	case KindFilled:
		f, err := ReadFilled(bytes.NewReader(data), path, s.Judge, s.Rules.MaxGrade, s.Time)
		if err != nil {
			return im, err
		}
		im.Labels, im.Skipped = f.Labels, f.Skipped
	default:
		q, err := trec.ReadQrels(bytes.NewReader(data), path)
		if err != nil {
			return im, err
		}
		im.Labels = labels.FromQrels(q, labels.Label{Dataset: s.Rules.Dataset, Judge: s.Judge, Source: s.Source, Time: s.Time})
	}
	if err := s.Rules.Check(im.Labels); err != nil {
		return im, fmt.Errorf("%s: %w", path, err)
	}
	return im, nil
}
