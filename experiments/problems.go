package experiments

import (
	"fmt"
	"strings"

	"gopkg.in/yaml.v3"
)

// problems collects the Problems of one experiment file, positioned by the
// yaml.v3 node they concern.
type problems struct {
	file string
	list Problems
}

func (ps *problems) at(n *yaml.Node, field, format string, args ...any) {
	pos := ps.file
	if n != nil && n.Line > 0 {
		pos = fmt.Sprintf("%s:%d:%d", ps.file, n.Line, n.Column)
	}
	ps.list = append(ps.list, Problem{Pos: pos, Field: field, Msg: fmt.Sprintf(format, args...)})
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
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	p := Problem{Pos: file, Msg: "syntax error: " + msg}
	var line int
	if _, scanErr := fmt.Sscanf(msg, "line %d:", &line); scanErr == nil {
		p.Pos = fmt.Sprintf("%s:%d", file, line)
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
