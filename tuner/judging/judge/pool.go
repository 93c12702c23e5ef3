package judge

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/fusiontune/fusiontune/internal/jsonkeys"
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

// poolLine is a pool line as decoded: the numbers, optional in a pool
// written by hand, as pointers, so that a zero given is told from none.
type poolLine struct {
	Dataset  string   `json:"dataset"`
	Query    string   `json:"query"`
	Doc      string   `json:"doc"`
	Priority *float64 `json:"priority"`
	Trials   *int     `json:"trials"`
	BestRank *int     `json:"best_rank"`
}

// entry is the line's entry, or why its numbers are out of range:
// priority >= 0, trials >= 1 and best_rank >= 1 when given.
func (l poolLine) entry() (PoolEntry, string) {
	e := PoolEntry{Dataset: l.Dataset, Query: l.Query, Doc: l.Doc}
	var why []string
	if l.Priority != nil {
		if e.Priority = *l.Priority; e.Priority < 0 {
			why = append(why, fmt.Sprintf("priority must be >= 0 (got %v)", e.Priority))
		}
	}
	if l.Trials != nil {
		if e.Trials = *l.Trials; e.Trials < 1 {
			why = append(why, fmt.Sprintf("trials must be >= 1 (got %d)", e.Trials))
		}
	}
	if l.BestRank != nil {
		if e.BestRank = *l.BestRank; e.BestRank < 1 {
			why = append(why, fmt.Sprintf("best_rank must be >= 1, ranks count from 1 (got %d)", e.BestRank))
		}
	}
	return e, strings.Join(why, "; ")
}

// ReadPool reads a pool file's JSON lines in order. file names the input
// in errors, which list every bad line as file:line: problem. A pair listed
// twice, a key given twice on a line, a negative priority and a rank or
// trial count below 1 are errors; an empty pool is not.
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
		var raw poolLine
		if err := dec.Decode(&raw); err != nil {
			bad("not a pool pair {\"dataset\",\"query\",\"doc\",...}: %v", err)
			continue
		}
		if dec.More() {
			bad("more than one JSON value on the line")
			continue
		}
		if k, dup := jsonkeys.Duplicate(b); dup {
			bad("key %q given twice", k)
			continue
		}
		e, why := raw.entry()
		if why != "" {
			bad("%s", why)
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
