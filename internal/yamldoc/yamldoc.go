package yamldoc

import (
	"bytes"
	"errors"
	"io"

	"gopkg.in/yaml.v3"
)

// Extra returns the line of a second YAML document in data ("---" followed
// by content, or a second document after "..."), or 0 when data holds at
// most one. Call it once data is known to parse: a second document that
// does not parse counts as a second document too, at the line where the
// first one ends (or 1 if that is unknown).
func Extra(data []byte) int {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var first yaml.Node
	if err := dec.Decode(&first); err != nil {
		return 0 // empty, or a syntax error the caller reports
	}
	var second yaml.Node
	err := dec.Decode(&second)
	switch {
	case errors.Is(err, io.EOF):
		return 0
	case err != nil:
		return max(1, lastLine(&first))
	}
	if second.Line > 0 {
		return second.Line
	}
	return max(1, lastLine(&first))
}

// lastLine is the largest line number in n's tree.
func lastLine(n *yaml.Node) int {
	l := n.Line
	for _, c := range n.Content {
		l = max(l, lastLine(c))
	}
	return l
}
