package harvest

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"time"

	"github.com/fusiontune/fusiontune/internal/querylog"
	"github.com/fusiontune/fusiontune/internal/userfile"
)

// ErrNoSearches marks logs without a search to harvest (empty, or only
// lines skipped or texts that normalise to nothing).
var ErrNoSearches = errors.New("no search to harvest")

// Config is one harvest: the logs, the sample, the golden set to write.
type Config struct {
	Logs   []string // log files, each with its rotated files (querylog.Files)
	Read   querylog.ReadOptions
	Sample Options
	// Out is the golden set written; Update adds to it when it exists
	// (without Update an existing Out is refused: nothing is overwritten).
	Out    string
	Update bool
	// Implicit grades the golden set's queries from the log's clicks.
	Implicit bool
	Clicks   ClickOptions
}

// Result is what a harvest found and wrote.
type Result struct {
	Log      *querylog.Log
	Distinct int // distinct queries in the log
	Blank    int // searches whose text normalises to nothing
	// Cleaned counts the searches whose text held control characters
	// (NUL, line feeds), replaced by spaces in the golden set.
	Cleaned   int
	Sampled   []Query
	Added     int // queries added to Out
	Golden    []byte
	Judgments []Judgment // implicit judgments of Out's harvested queries
	// LastEvent is the time of the log's last event: the time of the
	// implicit labels.
	LastEvent time.Time
}

// Run reads the logs, samples their queries and returns the golden set to
// write (Result.Golden) and, with Implicit, the implicit judgments of its
// harvested queries; it writes nothing.
func Run(c Config) (*Result, error) {
	if p := c.Sample.Validate(); len(p) > 0 {
		return nil, fmt.Errorf("harvest: %s", p[0])
	}
	existing, err := existingGolden(c.Out, c.Update)
	if err != nil {
		return nil, err
	}
	log, err := readLogs(c.Logs, c.Read)
	if err != nil {
		return nil, err
	}
	r := &Result{Log: log}
	qs, blank := Group(log.Searches)
	r.Distinct, r.Blank = len(qs), blank
	if len(qs) == 0 && existing == nil {
		return nil, fmt.Errorf("harvest: %w in %s (%d searches with a blank text, %d lines skipped): no golden set written",
			ErrNoSearches, strings.Join(c.Logs, ", "), blank, len(log.Bad))
	}
	for _, s := range log.Searches {
		if _, changed := Clean(s.Query); changed {
			r.Cleaned++
		}
	}
	have := map[string]bool{} // the ids the golden set written holds
	if existing != nil {
		if have, err = existingIDs(existing); err != nil {
			return nil, fmt.Errorf("harvest: %s: %w", c.Out, err)
		}
		qs = without(qs, have)
	}
	if len(qs) > 0 {
		if r.Sampled, err = Sample(qs, c.Sample); err != nil {
			return nil, err
		}
	}
	if r.Golden, r.Added, err = Golden(existing, r.Sampled); err != nil {
		return nil, fmt.Errorf("harvest: %s: %w", c.Out, err)
	}
	r.LastEvent = lastEvent(log)
	if c.Implicit {
		for _, q := range r.Sampled {
			have[q.ID] = true
		}
		js, err := Implicit(log, c.Clicks)
		if err != nil {
			return nil, err
		}
		for _, j := range js {
			if have[j.Query] {
				r.Judgments = append(r.Judgments, j)
			}
		}
	}
	return r, nil
}

// existingGolden is the golden set already at out, with update (nil when
// there is none); without update an existing file is an error: a harvest
// never overwrites one.
func existingGolden(out string, update bool) ([]byte, error) {
	data, err := userfile.Read(out, userfile.Default)
	switch {
	case err == nil && !update:
		return nil, fmt.Errorf("harvest: %s exists: --update adds the new queries to it, keeping every query it has", out)
	case err == nil:
		return data, nil
	case !errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("harvest: %w", err)
	}
	return nil, nil
}

// readLogs reads the query logs, each with its rotated files
// (querylog.Files: oldest first); a log with no file is an error.
func readLogs(logs []string, o querylog.ReadOptions) (*querylog.Log, error) {
	var files []string
	for _, l := range logs {
		found := querylog.Files(l)
		if len(found) == 0 {
			return nil, fmt.Errorf("harvest: query log %s: no such file", l)
		}
		files = append(files, found...)
	}
	return querylog.Read(files, o)
}

// lastEvent is the time of the log's last event, search or feedback.
func lastEvent(log *querylog.Log) time.Time {
	var last time.Time
	for _, events := range [][]querylog.Event{log.Searches, log.Feedback} {
		for _, e := range events {
			if e.Time.After(last) {
				last = e.Time
			}
		}
	}
	return last
}

func existingIDs(data []byte) (map[string]bool, error) {
	raws, err := existingQueries(data)
	if err != nil {
		return nil, err
	}
	have := map[string]bool{}
	for _, raw := range raws {
		have[rawID(raw)] = true
	}
	return have, nil
}

func without(qs []Query, have map[string]bool) []Query {
	var out []Query
	for _, q := range qs {
		if !have[q.ID] {
			out = append(out, q)
		}
	}
	return out
}
