package yamldoc

import (
	"strconv"

	"gopkg.in/yaml.v3"
)

// Describe says what node n holds, for the "(got …)" of a problem that
// wanted something else: "a mapping", "a list", "null", a scalar's value
// quoted, "an alias" (unresolved) or "an unsupported value". The golden-set
// and experiment-file walkers and the settings checker all describe nodes
// with it, so that one value reads the same in every file's problems.
func Describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		if n.ShortTag() == "!!null" {
			return "null"
		}
		return strconv.Quote(n.Value)
	case yaml.AliasNode:
		return "an alias"
	}
	return "an unsupported value"
}
