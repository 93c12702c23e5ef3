package trec_test

import (
	"errors"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/internal/trec"
)

// bigRun writes a run of queries x docs lines (a few MB: many chunks),
// the queries in order, each document's score its rank's inverse, and
// returns it with the blocks ScanRun must hand on.
func bigRun(queries, docs int) (string, []string, [][]trec.Result) {
	var b strings.Builder
	var ids []string
	var want [][]trec.Result
	for q := range queries {
		qid := fmt.Sprintf("q%04d", q)
		ids = append(ids, qid)
		var res []trec.Result
		for d := range docs {
			doc := fmt.Sprintf("doc-%d-%d", q, d)
			score := 1 / float64(d+1)
			fmt.Fprintf(&b, "%s Q0 %s %d %s tag%d\n", qid, doc, d+1, strconv.FormatFloat(score, 'g', -1, 64), q)
			res = append(res, trec.Result{DocNo: doc, Score: score})
		}
		want = append(want, res)
	}
	return b.String(), ids, want
}

// scanFunc is ScanRun or ScanRunTransient.
type scanFunc func(r io.Reader, file string, fn func(qid string, results []trec.Result) error) (string, error)

// TestScanRunChunks: a run of many chunks reaches fn as a sequential scan
// hands it on — one call per contiguous block, in input order, a block
// continued across chunk ends — with the first line's tag, and the first
// bad line in input order is reported at its line number with the
// message a one-chunk run gives.
func TestScanRunChunks(t *testing.T) { testScanChunks(t, trec.ScanRun) }

// TestScanRunTransientChunks: ScanRunTransient hands on what ScanRun does,
// every document id intact while fn runs.
func TestScanRunTransientChunks(t *testing.T) { testScanChunks(t, trec.ScanRunTransient) }

// scanCall is one call of a scan's fn, its results copied.
type scanCall struct {
	qid     string
	results []trec.Result
}

// scanAll scans in with scan and returns fn's calls.
func scanAll(scan scanFunc, in string) ([]scanCall, string, error) {
	var got []scanCall
	tag, err := scan(strings.NewReader(in), "run.txt", func(qid string, results []trec.Result) error {
		c := scanCall{qid, append([]trec.Result(nil), results...)}
		for i := range c.results {
			c.results[i].DocNo = strings.Clone(c.results[i].DocNo)
		}
		got = append(got, c)
		return nil
	})
	return got, tag, err
}

func testScanChunks(t *testing.T, scanRun scanFunc) {
	run, ids, want := bigRun(300, 777) // about 11 MB
	scan := func(t *testing.T, in string) ([]scanCall, string, error) {
		t.Helper()
		return scanAll(scanRun, in)
	}
	t.Run("whole", func(t *testing.T) {
		got, tag, err := scan(t, run)
		if err != nil {
			t.Fatal(err)
		}
		if tag != "tag0" {
			t.Errorf("tag %q, want tag0", tag)
		}
		if len(got) != len(ids) {
			t.Fatalf("%d calls, want %d", len(got), len(ids))
		}
		for i, c := range got {
			if c.qid != ids[i] || !reflect.DeepEqual(c.results, want[i]) {
				t.Fatalf("call %d: query %q with %d results, want %q with %d (or results differ)", i, c.qid, len(c.results), ids[i], len(want[i]))
			}
		}
	})
	lines := strings.SplitAfter(run, "\n")
	at := func(pairs ...any) string { // run with line n (1-based) replaced, for each n, line pair
		out := append([]string(nil), lines...)
		for i := 0; i < len(pairs); i += 2 {
			out[pairs[i].(int)-1] = pairs[i+1].(string)
		}
		return strings.Join(out, "")
	}
	for _, tc := range []struct {
		name string
		in   string
		want string
	}{
		{"bad score far in", at(200001, "q0257 Q0 d 1 x t\n"), `run.txt:200001: score must be a finite decimal number (got "x")`},
		{"two bad lines: the first wins", at(200001, "q0257 Q0 d 1 x t\n", 150000, "q0193 Q0 d\n"), `run.txt:150000: expected at least 6 fields "qid Q0 docno rank score tag" (got "q0193 Q0 d")`},
		{"long line", at(123457, "q0158 Q0 d 1 1 "+strings.Repeat("t", 300*1024)+"\n"), "run.txt:123457: line longer than 262144 bytes"},
		{"long last line", run + strings.Repeat("x", 2<<20), fmt.Sprintf("run.txt:%d: line longer than 262144 bytes", len(lines))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := scan(t, tc.in)
			if err == nil || err.Error() != tc.want {
				t.Errorf("error %v, want %s", err, tc.want)
			}
		})
	}
	t.Run("fn error stops", func(t *testing.T) {
		stop := errors.New("stop")
		n := 0
		_, err := scanRun(strings.NewReader(run), "run.txt", func(string, []trec.Result) error {
			if n++; n == 100 {
				return stop
			}
			return nil
		})
		if !errors.Is(err, stop) || n != 100 {
			t.Errorf("error %v after %d calls, want stop after 100", err, n)
		}
	})
	t.Run("not contiguous", func(t *testing.T) {
		in := strings.Join(lines[:1000], "") + strings.Join(lines[:10], "") // q0000 again after q0001
		got, _, err := scan(t, in)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 3 || got[0].qid != "q0000" || got[1].qid != "q0001" || got[2].qid != "q0000" || len(got[2].results) != 10 {
			t.Errorf("calls %d, want q0000, q0001, q0000 (10 results)", len(got))
		}
	})
}

// TestScanRunLongQueries: queries of many chunks each reach fn whole, as
// one call, their document ids intact, from either scan.
func TestScanRunLongQueries(t *testing.T) {
	run, ids, want := bigRun(3, 60000) // about 2 MB, four chunks, per query
	for name, scan := range map[string]scanFunc{"ScanRun": trec.ScanRun, "ScanRunTransient": trec.ScanRunTransient} {
		t.Run(name, func(t *testing.T) {
			got, _, err := scanAll(scan, run)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(ids) {
				t.Fatalf("%d calls, want %d", len(got), len(ids))
			}
			for i, c := range got {
				if c.qid != ids[i] || !reflect.DeepEqual(c.results, want[i]) {
					t.Fatalf("call %d: query %q with %d results, want %q with %d (or results differ)", i, c.qid, len(c.results), ids[i], len(want[i]))
				}
			}
		})
	}
}

// TestResultBuffer: results copied into a ResultBuffer keep their document
// ids after the scan has reused its memory, and a second Set replaces the
// first.
func TestResultBuffer(t *testing.T) {
	run, ids, want := bigRun(40, 2000)
	bufs := make([]trec.ResultBuffer, len(ids))
	i := 0
	_, err := trec.ScanRunTransient(strings.NewReader(run), "run.txt", func(qid string, results []trec.Result) error {
		bufs[i].Set(results[:len(results)/2])
		bufs[i].Set(results)
		i++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for i, b := range bufs {
		if !reflect.DeepEqual(b.Results, want[i]) {
			t.Fatalf("query %q: results changed after the scan", ids[i])
		}
	}
}
