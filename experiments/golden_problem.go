package experiments

import (
	"errors"
	"fmt"
	"strings"
)

// ErrInvalid is wrapped by every Problems error, so callers can tell invalid
// user input (exit 2) from other failures with errors.Is.
var ErrInvalid = errors.New("invalid input")

// Problem is one defect found in a user file: where it is, which field, and
// what was expected. It formats as `file:line:col: field: message`; Pos and
// Field are left out when unknown.
type Problem struct {
	Pos   string // "file:line:col", "file:line" or "file"
	Field string // field path, as in queries[3].expected_passages[0].relevance
	Msg   string // what is wrong and what was expected
}

// Error formats p as `pos: field: message`.
func (p Problem) Error() string {
	var b strings.Builder
	if p.Pos != "" {
		b.WriteString(p.Pos)
		b.WriteString(": ")
	}
	if p.Field != "" {
		b.WriteString(p.Field)
		b.WriteString(": ")
	}
	b.WriteString(p.Msg)
	return b.String()
}

// Problems lists every defect found in a set of files at once. As an error
// it prints one problem per line. Callers recover the list with errors.As.
type Problems []Problem

// Error prints one problem per line.
func (ps Problems) Error() string {
	lines := make([]string, len(ps))
	for i, p := range ps {
		lines[i] = p.Error()
	}
	return strings.Join(lines, "\n")
}

// Unwrap makes errors.Is(err, ErrInvalid) true for every Problems.
func (ps Problems) Unwrap() error { return ErrInvalid }

// problemList accumulates problems and warnings for one load.
type problemList struct {
	errs  Problems
	warns Problems
}

func (l *problemList) errorf(pos, field, format string, args ...any) {
	l.errs = append(l.errs, Problem{Pos: pos, Field: field, Msg: fmt.Sprintf(format, args...)})
}

func (l *problemList) warnf(pos, field, format string, args ...any) {
	l.warns = append(l.warns, Problem{Pos: pos, Field: field, Msg: fmt.Sprintf(format, args...)})
}

// err returns the accumulated problems as an error, or nil when there are none.
func (l *problemList) err() error {
	if len(l.errs) == 0 {
		return nil
	}
	return l.errs
}
