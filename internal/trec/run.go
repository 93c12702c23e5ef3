package trec

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"strconv"

	"github.com/fusiontune/fusiontune/internal/plainnum"
	"github.com/fusiontune/fusiontune/internal/userfile"
)

// Result is one retrieved document of a run.
type Result struct {
	DocNo string  // document id
	Score float64 // retrieval score; trec_eval ranks by it, not by the rank column
}

// Run is a parsed run file: its tag (the last column of its first line) and
// each query's results in file order.
type Run struct {
	Tag     string
	Queries map[string][]Result
}

// NumResults returns the number of results over all queries of r.
func (r Run) NumResults() int {
	n := 0
	for _, res := range r.Queries {
		n += len(res)
	}
	return n
}

// ReadRun parses run lines `qid Q0 docno rank score tag` from r. file names
// the input in error messages. Blank lines are skipped. The rank column must
// be an integer but is otherwise ignored (trec_eval orders by score); the
// score must be a finite number. Text after the sixth field is ignored, as
// trec_eval ignores it. Results keep file order, also when a query's lines
// are not contiguous; duplicates are kept too (evaluators decide what to do
// with them).
func ReadRun(r io.Reader, file string) (Run, error) {
	run := Run{Queries: map[string][]Result{}}
	var slab []Result // results are copied, exactly sized, into shared slabs
	tag, err := ScanRun(r, file, func(qid string, results []Result) error {
		if prev, ok := run.Queries[qid]; ok { // the query appeared earlier
			run.Queries[qid] = append(prev[:len(prev):len(prev)], results...)
			return nil
		}
		const slabSize = 32 * 1024
		n := len(results)
		if n > slabSize/4 {
			run.Queries[qid] = append([]Result(nil), results...)
			return nil
		}
		if len(slab) < n {
			slab = make([]Result, slabSize)
		}
		dst := slab[:n:n]
		copy(dst, results)
		slab = slab[n:]
		run.Queries[qid] = dst
		return nil
	})
	if err != nil {
		return Run{}, err
	}
	run.Tag = tag
	return run, nil
}

// ScanRun parses a run like ReadRun but hands each block of contiguous lines
// of one query to fn as soon as the block ends, so a run can be processed
// without holding it in memory. results is reused after fn returns (the
// DocNo strings are not). A query whose lines are not contiguous reaches fn
// once per block. ScanRun returns the run's tag (the sixth field of its
// first line) and stops at the first error of parsing or of fn, in input
// order. The lines are parsed on every core, a chunk of the input at a
// time; fn is called from the calling goroutine, in input order.
func ScanRun(r io.Reader, file string, fn func(qid string, results []Result) error) (tag string, err error) {
	return scanChunks(r, file, false, fn)
}

// ScanRunTransient is ScanRun for a caller done with a block's document
// ids when fn returns: the DocNo strings view the input as read, and that
// memory is reused for later input, so a run of any length is read
// without a copy of its document ids. A caller that keeps results longer
// copies them (ResultBuffer). Query ids are not reused.
func ScanRunTransient(r io.Reader, file string, fn func(qid string, results []Result) error) (tag string, err error) {
	return scanChunks(r, file, true, fn)
}

// runParser parses run lines, line numbering its errors.
type runParser struct {
	file      string
	line      int
	f         [7][]byte
	arena     []byte // document ids are sliced out of shared blocks
	transient bool   // document ids view the line instead
}

// parse checks one line and returns its query id, tag and result (a nil
// qid: a blank line).
func (p *runParser) parse(b []byte) (qid, tag []byte, r Result, err error) {
	f := p.f[:6]
	n := fields(trimBOM(b, p.line), f)
	if n == 0 {
		return nil, nil, r, nil
	}
	if n < 6 {
		return nil, nil, r, fmt.Errorf("%s:%d: expected at least 6 fields \"qid Q0 docno rank score tag\" (got %q)", p.file, p.line, trimEOL(b))
	}
	for _, id := range [...]struct {
		what string
		b    []byte
	}{{"query id", f[0]}, {"document id", f[2]}} {
		if why := checkID(id.b); why != "" {
			return nil, nil, r, fmt.Errorf("%s:%d: %s %q %s", p.file, p.line, id.what, id.b, why)
		}
	}
	if _, ok := plainnum.Uint(unsafeString(f[3])); !ok {
		return nil, nil, r, fmt.Errorf("%s:%d: rank must be a plain non-negative integer (got %q)", p.file, p.line, f[3])
	}
	score, ok := parseDecimal(f[4])
	if !ok || math.IsNaN(score) || math.IsInf(score, 0) {
		return nil, nil, r, fmt.Errorf("%s:%d: score must be a finite decimal number (got %q)", p.file, p.line, f[4])
	}
	doc := unsafeString(f[2])
	if !p.transient {
		doc = intern(&p.arena, f[2])
	}
	return f[0], f[5], Result{DocNo: doc, Score: score}, nil
}

// intern copies b into the shared block *arena and returns it as a string,
// so that a million document ids cost a few hundred allocations.
func intern(arena *[]byte, b []byte) string {
	const block = 64 * 1024
	if len(b) > block/8 {
		return string(b)
	}
	if cap(*arena)-len(*arena) < len(b) {
		*arena = make([]byte, 0, block)
	}
	start := len(*arena)
	*arena = append(*arena, b...)
	s := (*arena)[start:len(*arena):len(*arena)]
	return unsafeString(s)
}

func trimEOL(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	return b
}

// ReadRunFile opens path and parses it with ReadRun.
func ReadRunFile(path string) (Run, error) {
	f, err := userfile.Open(path)
	if err != nil {
		return Run{}, fmt.Errorf("read run: %w", err)
	}
	defer f.Close()
	return ReadRun(f, path)
}

// WriteRun writes r in TREC run format: queries in ascending id order, each
// query's results in slice order with ranks 1, 2, ... and scores in the
// shortest form that reads back exactly. An empty tag is written as "run".
func WriteRun(w io.Writer, r Run) error {
	qids := make([]string, 0, len(r.Queries))
	for q := range r.Queries {
		qids = append(qids, q)
	}
	sort.Strings(qids)
	bw := bufio.NewWriter(w)
	for _, q := range qids {
		if err := writeQuery(bw, q, r.Queries[q], r.Tag); err != nil {
			return err
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write run: %w", err)
	}
	return nil
}

// WriteQuery writes the results of one query in TREC run format, ranks
// starting at 1, for callers that stream a run query by query.
func WriteQuery(w io.Writer, qid string, results []Result, tag string) error {
	bw := bufio.NewWriter(w)
	if err := writeQuery(bw, qid, results, tag); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write run: %w", err)
	}
	return nil
}

func writeQuery(bw *bufio.Writer, qid string, results []Result, tag string) error {
	if tag == "" {
		tag = "run"
	}
	if err := checkField("query id", qid); err != nil {
		return fmt.Errorf("write run: %w", err)
	}
	if err := checkField("tag", tag); err != nil {
		return fmt.Errorf("write run: %w", err)
	}
	var buf []byte
	for i, res := range results {
		if err := checkField("document id", res.DocNo); err != nil {
			return fmt.Errorf("write run: %w", err)
		}
		buf = buf[:0]
		buf = append(buf, qid...)
		buf = append(buf, " Q0 "...)
		buf = append(buf, res.DocNo...)
		buf = append(buf, ' ')
		buf = strconv.AppendInt(buf, int64(i+1), 10)
		buf = append(buf, ' ')
		buf = strconv.AppendFloat(buf, res.Score, 'g', -1, 64)
		buf = append(buf, ' ')
		buf = append(buf, tag...)
		buf = append(buf, '\n')
		if _, err := bw.Write(buf); err != nil {
			return fmt.Errorf("write run: %w", err)
		}
	}
	return nil
}

func checkField(what, s string) error {
	if s == "" {
		return fmt.Errorf("empty %s", what)
	}
	for i := 0; i < len(s); i++ {
		if isSpace(s[i]) {
			return fmt.Errorf("%s %q contains whitespace", what, s)
		}
	}
	return nil
}

// WriteRunFile writes r to path (WriteRun), or to stdout when path is
// "-"; a file that cannot be created or closed is an error naming cmd.
func WriteRunFile(path string, stdout io.Writer, r Run, cmd string) error {
	if path == "-" {
		return WriteRun(stdout, r)
	}
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("%s: %w", cmd, err)
	}
	defer f.Close()
	if err := WriteRun(f, r); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("%s: %w", cmd, err)
	}
	return nil
}
