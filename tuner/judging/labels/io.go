package labels

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/fusiontune/fusiontune/internal/jsonkeys"
	"github.com/fusiontune/fusiontune/internal/trec"
)

// FromQrels turns qrels (TREC or BEIR tsv, as trec.ReadQrels reads them)
// into labels that copy base's Dataset, Judge, Source, Time and Confidence,
// ordered by query and document. Negative grades (judged non-relevant, as
// trec_eval reads them) become 0.
func FromQrels(q trec.Qrels, base Label) []Label {
	var out []Label
	for _, qid := range slices.Sorted(maps.Keys(q)) {
		for _, doc := range slices.Sorted(maps.Keys(q[qid])) {
			l := base
			l.Query, l.Doc, l.Grade = qid, doc, max(q[qid][doc], 0)
			out = append(out, l)
		}
	}
	return out
}

// ToQrels returns the grades of ls as qrels; of two labels of one pair the
// later in ls wins (pass Effective's or one judge's Latest labels).
func ToQrels(ls []Label) trec.Qrels {
	q := trec.Qrels{}
	for _, l := range ls {
		if q[l.Query] == nil {
			q[l.Query] = map[string]int{}
		}
		q[l.Query][l.Doc] = l.Grade
	}
	return q
}

// jsonLabel is a Label as one line of the native JSONL.
type jsonLabel struct {
	Dataset    string   `json:"dataset"`
	Query      string   `json:"query"`
	Doc        string   `json:"doc"`
	Grade      *int     `json:"grade"`
	Judge      string   `json:"judge"`
	Source     string   `json:"source"`
	Time       string   `json:"time,omitempty"`
	Rationale  string   `json:"rationale,omitempty"`
	Confidence *float64 `json:"confidence,omitempty"`
}

// WriteJSONL writes ls as the native JSONL, one label per line in the
// order given: {"dataset","query","doc","grade","judge","source","time"
// (RFC 3339, UTC), "rationale" and "confidence" when set}.
func WriteJSONL(w io.Writer, ls []Label) error {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	for _, l := range ls {
		g := l.Grade
		j := jsonLabel{Dataset: l.Dataset, Query: l.Query, Doc: l.Doc, Grade: &g, Judge: l.Judge, Source: l.Source, Rationale: l.Rationale}
		if !l.Time.IsZero() {
			j.Time = l.Time.UTC().Format(time.RFC3339Nano)
		}
		if l.Confidence != 0 {
			c := l.Confidence
			j.Confidence = &c
		}
		if err := enc.Encode(j); err != nil {
			return fmt.Errorf("write labels: %w", err)
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write labels: %w", err)
	}
	return nil
}

// ReadJSONL reads the native JSONL. file names the input in errors, which
// list every bad line as file:line: problem. Unknown fields, a missing
// field and an invalid label (see Label.Validate) are errors.
func ReadJSONL(r io.Reader, file string) ([]Label, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 16*1024*1024)
	var out []Label
	var errs []error
	line := 0
	for sc.Scan() {
		line++
		b := bytes.TrimSpace(sc.Bytes())
		if line == 1 {
			b = bytes.TrimPrefix(b, []byte("\ufeff"))
		}
		if len(b) == 0 {
			continue
		}
		l, err := parseJSONLabel(b)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s:%d: %w", file, line, err))
			continue
		}
		out = append(out, l)
	}
	if err := sc.Err(); err != nil {
		errs = append(errs, fmt.Errorf("%s:%d: %w", file, line+1, err))
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return out, nil
}

func parseJSONLabel(b []byte) (Label, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var j jsonLabel
	if err := dec.Decode(&j); err != nil {
		return Label{}, fmt.Errorf("not a label object: %w", err)
	}
	if dec.More() {
		return Label{}, errors.New("more than one JSON value on the line")
	}
	if k, dup := jsonkeys.Duplicate(b); dup {
		return Label{}, fmt.Errorf("key %q given twice", k)
	}
	var missing []string
	for _, f := range []struct {
		name string
		ok   bool
	}{{"dataset", j.Dataset != ""}, {"query", j.Query != ""}, {"doc", j.Doc != ""}, {"grade", j.Grade != nil}, {"judge", j.Judge != ""}, {"source", j.Source != ""}} {
		if !f.ok {
			missing = append(missing, f.name)
		}
	}
	if len(missing) > 0 {
		return Label{}, fmt.Errorf("missing %s", strings.Join(missing, ", "))
	}
	l := Label{Dataset: j.Dataset, Query: j.Query, Doc: j.Doc, Grade: *j.Grade, Judge: j.Judge, Source: j.Source, Rationale: j.Rationale}
	if j.Confidence != nil {
		l.Confidence = *j.Confidence
	}
	if j.Time != "" {
		t, err := time.Parse(time.RFC3339Nano, j.Time)
		if err != nil {
			return Label{}, fmt.Errorf("time %q: want RFC 3339 (2006-01-02T15:04:05Z)", j.Time)
		}
		l.Time = t.UTC()
	}
	if err := l.Validate(); err != nil {
		return Label{}, err
	}
	return l, nil
}

// Rules are what the labels of one import or one judge's run must
// satisfy before any is appended, the golden-set reader's rules: the
// dataset's, a query of its golden set, a document of its corpus, a
// grade on its scale, and one grade per pair and judge.
type Rules struct {
	// Dataset is the dataset every label must be of.
	Dataset string
	// Queries are the golden set's query ids (nil: any query).
	Queries map[string]bool
	// Docs are the corpus's document ids (nil: no corpus to check).
	Docs map[string]bool
	// MaxGrade is the golden set's top grade (0: any grade Validate takes).
	MaxGrade int
}

// Check reports every label that breaks r, listing them all (at most 20
// named, with a count of the rest), wrapping ErrInvalid, so that labels
// for another golden set, a document the corpus lacks, a grade off the
// scale or a pair graded twice are never stored.
func (r Rules) Check(ls []Label) error {
	var bad []string
	n := 0
	seen := make(map[[3]string]bool, len(ls))
	for _, l := range ls {
		var why string
		k := [3]string{l.Query, l.Doc, l.Judge}
		switch {
		case l.Dataset != r.Dataset:
			why = fmt.Sprintf("dataset %q is not %q", l.Dataset, r.Dataset)
		case r.Queries != nil && !r.Queries[l.Query]:
			why = fmt.Sprintf("query %q is not in the golden set", l.Query)
		case r.Docs != nil && !r.Docs[l.Doc]:
			why = fmt.Sprintf("document %q is not in the corpus", l.Doc)
		case r.MaxGrade > 0 && (l.Grade < 0 || l.Grade > r.MaxGrade):
			why = fmt.Sprintf("grade %d is off the golden set's scale 0..%d", l.Grade, r.MaxGrade)
		case seen[k]:
			why = fmt.Sprintf("graded twice by %q: one grade per pair", l.Judge)
		default:
			seen[k] = true
			continue
		}
		n++
		if len(bad) < 20 {
			bad = append(bad, fmt.Sprintf("query %q doc %q: %s", l.Query, l.Doc, why))
		}
	}
	if n == 0 {
		return nil
	}
	more := ""
	if n > len(bad) {
		more = fmt.Sprintf("\n  (and %d more)", n-len(bad))
	}
	return fmt.Errorf("%w: %d labels cannot be stored for dataset %q (nothing appended):\n  %s%s", ErrInvalid, n, r.Dataset, strings.Join(bad, "\n  "), more)
}

// Formats Write writes.
const (
	// FormatJSONL is the native JSONL (WriteJSONL).
	FormatJSONL = "jsonl"
	// FormatQrels is TREC qrels of one grade per pair: by precedence
	// (Effective), then the latest.
	FormatQrels = "qrels"
)

// Write writes ls in format: FormatJSONL or FormatQrels.
func Write(w io.Writer, ls []Label, format string) error {
	switch format {
	case FormatJSONL:
		return WriteJSONL(w, ls)
	case FormatQrels:
		q, _ := Effective(nil, ls)
		return trec.WriteQrels(w, q)
	}
	return fmt.Errorf("labels: format %q: want %s or %s", format, FormatJSONL, FormatQrels)
}
