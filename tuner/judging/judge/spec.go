package judge

import (
	"errors"
	"fmt"
	"strings"
)

// ErrSpec is the error of a judge named neither llm nor file:PATH.
var ErrSpec = errors.New("want llm or file:PATH")

// ParseSpec reads a judge spec as commands take it: "llm" (the LLM judge;
// isFile false) or "file:PATH" (a qrels file judge; path is PATH).
// Anything else wraps ErrSpec.
func ParseSpec(spec string) (path string, isFile bool, err error) {
	if spec == "llm" {
		return "", false, nil
	}
	path, isFile = strings.CutPrefix(spec, "file:")
	if !isFile || path == "" {
		return "", false, fmt.Errorf("%w (got %q)", ErrSpec, spec)
	}
	return path, true, nil
}
