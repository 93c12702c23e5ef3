package experiments

import (
	"errors"
	"fmt"
	"strings"

	"gopkg.in/yaml.v3"
)

// ErrInvalid is wrapped by every validation error of a user file, so callers
// can tell bad input (exit 2) from other failures.
var ErrInvalid = errors.New("invalid input")

// Problem is one thing wrong with a user file, located by file, line and
// column and by the path of the field, e.g.
// "shortlist.json:14:5: experiments[2].params.fusion.k: must be > 0 (got -1)".
type Problem struct {
	File   string
	Line   int
	Column int
	Field  string
	Msg    string
}

func (p Problem) String() string {
	var b strings.Builder
	b.WriteString(p.File)
	if p.Line > 0 {
		fmt.Fprintf(&b, ":%d:%d", p.Line, p.Column)
	}
	b.WriteString(": ")
	if p.Field != "" {
		b.WriteString(p.Field)
		b.WriteString(": ")
	}
	b.WriteString(p.Msg)
	return b.String()
}

// ProblemList is an error listing every problem found in one or more files.
type ProblemList []Problem

func (l ProblemList) Error() string {
	lines := make([]string, len(l))
	for i, p := range l {
		lines[i] = p.String()
	}
	return strings.Join(lines, "\n")
}

// Unwrap makes errors.Is(err, ErrInvalid) true for every ProblemList.
func (l ProblemList) Unwrap() error { return ErrInvalid }

// problems collects Problems for one file.
type problems struct {
	file string
	list ProblemList
}

func (ps *problems) at(n *yaml.Node, field, format string, args ...any) {
	p := Problem{File: ps.file, Field: field, Msg: fmt.Sprintf(format, args...)}
	if n != nil {
		p.Line, p.Column = n.Line, n.Column
	}
	ps.list = append(ps.list, p)
}

func (ps *problems) err() error {
	if len(ps.list) == 0 {
		return nil
	}
	return ps.list
}

// yamlSyntaxProblem turns a yaml.v3 parse error into a Problem, keeping the
// line number yaml.v3 puts in its message.
func yamlSyntaxProblem(file string, err error) Problem {
	msg := err.Error()
	msg = strings.TrimPrefix(msg, "yaml: ")
	p := Problem{File: file, Msg: "syntax error: " + msg}
	var line int
	if _, scanErr := fmt.Sscanf(msg, "line %d:", &line); scanErr == nil {
		p.Line, p.Column = line, 1
		p.Msg = "syntax error:" + strings.SplitN(msg, ":", 2)[1]
	}
	return p
}

// joinField builds a field path: joinField("a", "b") = "a.b",
// joinField("a", "[2]") = "a[2]".
func joinField(parent, child string) string {
	if parent == "" {
		return child
	}
	if strings.HasPrefix(child, "[") {
		return parent + child
	}
	return parent + "." + child
}
