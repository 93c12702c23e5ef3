package labels

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"time"
	"unicode/utf8"
)

// Sources of a label, from most to least trusted.
const (
	// SourceGold is a judgment of the golden set itself.
	SourceGold = "gold"
	// SourceHuman is a label a person gave.
	SourceHuman = "human"
	// SourceFile is a label read from another qrels file.
	SourceFile = "file"
	// SourceLLM is a label a language model gave.
	SourceLLM = "llm"
	// SourceImplicit is a label inferred from behaviour (clicks, dwell).
	SourceImplicit = "implicit"
)

// Sources lists the known sources, most trusted first.
var Sources = []string{SourceGold, SourceHuman, SourceFile, SourceLLM, SourceImplicit}

// rank orders sources by trust: a lower rank wins.
func rank(source string) int {
	for i, s := range Sources {
		if s == source {
			return i
		}
	}
	return len(Sources)
}

// MaxGrade is the largest grade a label may carry; grades are 0..MaxGrade.
const MaxGrade = 100

// Label is one judge's relevance grade for one (query, document) pair of a
// dataset.
type Label struct {
	// Dataset, Query and Doc identify the pair: the golden set's dataset
	// id, query id and document id.
	Dataset, Query, Doc string
	// Grade is the relevance grade, 0..MaxGrade, on the golden set's scale.
	Grade int
	// Judge names who gave the label: a person's name, "gold",
	// "llm:<model>@<prompt-hash-8>" or "file:<basename>".
	Judge string
	// Source is one of Sources.
	Source string
	// Time is when the label was given; Append sets a zero Time to now.
	Time time.Time
	// Rationale is the judge's optional reason.
	Rationale string
	// Confidence is the judge's confidence: 0 when unknown, else in (0,1].
	Confidence float64
}

// ErrInvalid is wrapped by every error about a label that cannot be stored.
var ErrInvalid = errors.New("invalid label")

// Times a label may carry: the range of int64 nanoseconds since 1970.
var (
	minTime = time.Unix(0, math.MinInt64)
	maxTime = time.Unix(0, math.MaxInt64)
)

// Validate reports every reason l cannot be stored, joined, each wrapping
// ErrInvalid; nil when it can.
func (l Label) Validate() error {
	var errs []error
	bad := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("%w: %s", ErrInvalid, fmt.Sprintf(format, args...)))
	}
	for _, f := range []struct{ name, v string }{{"dataset", l.Dataset}, {"query", l.Query}, {"doc", l.Doc}, {"judge", l.Judge}} {
		if why := checkID(f.v); why != "" {
			bad("%s %q %s", f.name, f.v, why)
		}
	}
	if l.Grade < 0 || l.Grade > MaxGrade {
		bad("grade %d out of range 0..%d", l.Grade, MaxGrade)
	}
	if rank(l.Source) == len(Sources) {
		bad("source %q unknown (want one of %s)", l.Source, strings.Join(Sources, ", "))
	}
	if !l.Time.IsZero() && (l.Time.Before(minTime) || l.Time.After(maxTime)) {
		bad("time %s out of range", l.Time.Format(time.RFC3339))
	}
	if math.IsNaN(l.Confidence) || l.Confidence < 0 || l.Confidence > 1 {
		bad("confidence %v out of range (0 = unknown, else (0,1])", l.Confidence)
	}
	if strings.ContainsRune(l.Rationale, 0) {
		bad("rationale holds a NUL character")
	}
	if len(errs) == 0 {
		return nil
	}
	return fmt.Errorf("query %q doc %q judge %q: %w", l.Query, l.Doc, l.Judge, errors.Join(errs...))
}

// checkID returns why id cannot be an id ("" when it can): empty, leading
// or trailing space, or a control character.
func checkID(id string) string {
	switch {
	case id == "":
		return "is empty"
	case strings.TrimSpace(id) != id:
		return "has leading or trailing space"
	case !utf8.ValidString(id):
		return "is not valid UTF-8"
	case strings.ContainsFunc(id, func(r rune) bool { return r < 0x20 || r == 0x7f }):
		return "holds a control character"
	}
	return ""
}
