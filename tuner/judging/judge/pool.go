package judge

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// PoolEntry is one line of a pool file (written by `tune judge pool`):
// {"dataset","query","doc","priority","trials","best_rank"}.
type PoolEntry struct {
	Dataset  string  `json:"dataset"`
	Query    string  `json:"query"`
	Doc      string  `json:"doc"`
	Priority float64 `json:"priority"`
	Trials   int     `json:"trials"`
	BestRank int     `json:"best_rank"`
	// Where is "file:line", for messages.
	Where string `json:"-"`
}

// ReadPool reads a pool file's JSON lines in order. file names the input
// in errors, which list every bad line as file:line: problem. A pair listed
// twice is an error; an empty pool is not.
func ReadPool(r io.Reader, file string) ([]PoolEntry, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 1024*1024)
	var out []PoolEntry
	var errs []error
	seen := map[[3]string]int{}
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
		bad := func(format string, args ...any) {
			errs = append(errs, fmt.Errorf("%s:%d: %s", file, line, fmt.Sprintf(format, args...)))
		}
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		var e PoolEntry
		if err := dec.Decode(&e); err != nil {
			bad("not a pool pair {\"dataset\",\"query\",\"doc\",...}: %v", err)
			continue
		}
		if dec.More() {
			bad("more than one JSON value on the line")
			continue
		}
		var missing []string
		for _, f := range []struct{ name, v string }{{"dataset", e.Dataset}, {"query", e.Query}, {"doc", e.Doc}} {
			if strings.TrimSpace(f.v) == "" {
				missing = append(missing, f.name)
			}
		}
		if len(missing) > 0 {
			bad("missing %s", strings.Join(missing, ", "))
			continue
		}
		k := [3]string{e.Dataset, e.Query, e.Doc}
		if first, dup := seen[k]; dup {
			bad("query %q doc %q listed twice (first on line %d)", e.Query, e.Doc, first)
			continue
		}
		seen[k] = line
		e.Where = fmt.Sprintf("%s:%d", file, line)
		out = append(out, e)
	}
	if err := sc.Err(); err != nil {
		errs = append(errs, fmt.Errorf("%s:%d: %w", file, line+1, err))
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return out, nil
}
