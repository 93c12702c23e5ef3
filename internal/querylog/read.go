package querylog

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"time"
	"unicode/utf8"

	"github.com/fusiontune/fusiontune/internal/userfile"
)

// LineError is a bad line of a query log: where it is (file:line) and
// what is wrong with it.
type LineError struct {
	Pos string // file:line
	Msg string
}

func (e *LineError) Error() string { return e.Pos + ": " + e.Msg }

// ReadOptions controls Read.
type ReadOptions struct {
	// SkipBad skips a bad line (counting it in Log.Skipped and keeping its
	// problem in Log.Bad) instead of failing on the first one.
	SkipBad bool
}

// MaxKeptProblems bounds Log.Bad: the first problems are kept, the rest
// only counted.
const MaxKeptProblems = 20

// Log is what Read found in one or more query-log files, in file order.
type Log struct {
	Searches []Event // the search events
	Feedback []Event // the feedback events, each naming a search of Searches
	Shadows  []Event // the shadow answers, each naming a search of Searches
	Skipped  int     // bad lines skipped (ReadOptions.SkipBad)
	Bad      []*LineError
	Files    []string // the files read
}

// Read reads query-log files in the order given (a rotated log's oldest
// file first). Every line is checked: valid UTF-8, one JSON object, the
// fields of Event.Check, a search's request id used once, and a feedback
// event's request id naming a search read before it (in this or an
// earlier file). The first bad line is an error naming file:line, unless
// opt.SkipBad. Blank lines are ignored.
func Read(paths []string, opt ReadOptions) (*Log, error) {
	log := &Log{}
	ids := map[string]int{} // request id -> index in Searches
	for _, path := range paths {
		if err := log.readFile(path, ids, opt); err != nil {
			return nil, err
		}
		log.Files = append(log.Files, path)
	}
	return log, nil
}

func (l *Log) readFile(path string, ids map[string]int, opt ReadOptions) error {
	f, err := userfile.Open(path)
	if err != nil {
		return fmt.Errorf("query log: %w", err)
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 64<<10)
	for n := 1; ; n++ {
		line, err := readLine(r)
		if err == io.EOF {
			return nil
		}
		pos := fmt.Sprintf("%s:%d", path, n)
		var msg string
		switch {
		case errors.Is(err, errLineTooLong):
			msg = fmt.Sprintf("line longer than %d bytes", MaxLineBytes)
		case err != nil:
			return fmt.Errorf("query log %s: %w", pos, err)
		case len(bytes.TrimSpace(line)) == 0:
			continue
		default:
			msg = l.add(line, pos, ids)
		}
		if msg == "" {
			continue
		}
		bad := &LineError{Pos: pos, Msg: msg}
		if !opt.SkipBad {
			return fmt.Errorf("query log: %w (--skip-bad-lines skips such lines, counting them)", bad)
		}
		l.Skipped++
		if len(l.Bad) < MaxKeptProblems {
			l.Bad = append(l.Bad, bad)
		}
	}
}

// add decodes and checks one line, appending its event; it returns the
// line's problem, or "".
func (l *Log) add(line []byte, pos string, ids map[string]int) string {
	if !utf8.Valid(line) {
		return "not valid UTF-8"
	}
	var e Event
	if err := json.Unmarshal(line, &e); err != nil {
		return jsonProblem(err)
	}
	if p := e.Check(); p != "" {
		return p
	}
	e.Pos = pos
	switch e.Type {
	case TypeSearch:
		if i, dup := ids[e.RequestID]; dup {
			return fmt.Sprintf("request_id: %q already used by the search at %s", e.RequestID, l.Searches[i].Pos)
		}
		ids[e.RequestID] = len(l.Searches)
		l.Searches = append(l.Searches, e)
	case TypeFeedback:
		i, ok := ids[e.RequestID]
		if !ok {
			return fmt.Sprintf("request_id: %q names no search logged before it", e.RequestID)
		}
		if e.Action == ActionClick {
			if p := fillPosition(&e, &l.Searches[i]); p != "" {
				return p
			}
		}
		l.Feedback = append(l.Feedback, e)
	case TypeShadow:
		if _, ok := ids[e.RequestID]; !ok {
			return fmt.Sprintf("request_id: %q names no search logged before it", e.RequestID)
		}
		l.Shadows = append(l.Shadows, e)
	}
	return ""
}

// fillPosition checks a click against its search's results and sets its
// position when it was omitted.
func fillPosition(click, search *Event) string {
	for i, r := range search.Results {
		if r.ID != click.DocID {
			continue
		}
		if click.Position == 0 {
			click.Position = i + 1
		} else if click.Position != i+1 {
			return fmt.Sprintf("position: %d, but %q is at %d in the results of %s", click.Position, click.DocID, i+1, search.Pos)
		}
		return ""
	}
	return fmt.Sprintf("doc_id: %q is not among the results of the search at %s", click.DocID, search.Pos)
}

func jsonProblem(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		if te.Field == "" {
			return fmt.Sprintf("want a JSON object (got a JSON %s)", te.Value)
		}
		return fmt.Sprintf("%s: want %s (got a JSON %s)", te.Field, typeWord(te.Type.Kind()), te.Value)
	}
	var pe *time.ParseError
	if errors.As(err, &pe) {
		return fmt.Sprintf("time: want RFC 3339, e.g. 2026-11-24T07:00:00Z (got %s)", pe.Value)
	}
	return "not a JSON object of the query-log format: " + err.Error()
}

// typeWord names a Go kind the way a log's author thinks of it.
func typeWord(k reflect.Kind) string {
	switch k {
	case reflect.Float64, reflect.Float32:
		return "a number"
	case reflect.Int, reflect.Int64:
		return "an integer"
	case reflect.String:
		return "a string"
	case reflect.Slice:
		return "a list"
	case reflect.Map, reflect.Struct:
		return "an object"
	}
	return k.String()
}

var errLineTooLong = errors.New("line too long")

// readLine reads one line without its newline, never holding more than
// MaxLineBytes of it: a longer line is consumed and reported as
// errLineTooLong.
func readLine(r *bufio.Reader) ([]byte, error) {
	var buf []byte
	for {
		chunk, err := r.ReadSlice('\n')
		if len(buf)+len(chunk) > MaxLineBytes+1 {
			for err == bufio.ErrBufferFull {
				_, err = r.ReadSlice('\n')
			}
			if err != nil && err != io.EOF {
				return nil, err
			}
			return nil, errLineTooLong
		}
		buf = append(buf, chunk...)
		switch err {
		case bufio.ErrBufferFull:
			continue
		case io.EOF:
			if len(buf) == 0 {
				return nil, io.EOF
			}
			return buf, nil
		case nil:
			return bytes.TrimSuffix(bytes.TrimSuffix(buf, []byte("\n")), []byte("\r")), nil
		default:
			return nil, err
		}
	}
}
