package trec_test

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/internal/trec"
)

func TestReadQrels(t *testing.T) {
	got, err := trec.ReadQrelsFile("testdata/small.qrels")
	if err != nil {
		t.Fatal(err)
	}
	want := trec.Qrels{"1": {"d1": 3, "d2": 0, "d3": 2}, "2": {"d9": 1}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	if n := got.NumJudged(); n != 4 {
		t.Errorf("NumJudged = %d, want 4", n)
	}
}

// TestReadQrelsBEIR reads BEIR qrels (header, three tab-separated columns)
// into the same judgments as the TREC fixture.
func TestReadQrelsBEIR(t *testing.T) {
	got, err := trec.ReadQrelsFile("testdata/small-beir.tsv")
	if err != nil {
		t.Fatal(err)
	}
	want := trec.Qrels{"1": {"d1": 3, "d2": 0, "d3": 2}, "2": {"d9": 1}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}

func TestReadQrelsErrors(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"too few fields", "1 0 d1\n", `q.txt:1: expected 4 fields "qid iter docno rel" (got "1 0 d1")`},
		{"too many fields", "1 0 d1 1\n1 0 d2 1 x\n", `q.txt:2: expected 4 fields`},
		{"bad grade", "\n1 0 d1 high\n", `q.txt:2: relevance must be an integer (got "high")`},
		{"float grade", "1 0 d1 1.5\n", `q.txt:1: relevance must be an integer (got "1.5")`},
		{"duplicate", "1 0 d1 1\n1 0 d1 2\n", `q.txt:2: document "d1" judged twice for query "1"`},
		{"three fields without the BEIR header", "1 d1 1\n", `q.txt:1: expected 4 fields "qid iter docno rel" (got "1 d1 1"); BEIR qrels start with the header line "query-id corpus-id score"`},
		{"BEIR line of four fields", "query-id\tcorpus-id\tscore\n1\td1\t1\n1\t0\td2\t1\n", `q.txt:3: expected 3 fields "query-id corpus-id score" (BEIR qrels, as the header says; got "1\t0\td2\t1")`},
		{"BEIR bad grade", "query-id\tcorpus-id\tscore\n1\td1\tyes\n", `q.txt:2: relevance must be an integer (got "yes")`},
		{"duplicate in a later block of the query", "1 0 d1 1\n2 0 d1 1\n1 0 d2 1\n1 0 d1 0\n", `q.txt:4: document "d1" judged twice for query "1"`},
		{"the first of two duplicates", "1 0 b 1\n1 0 a 1\n1 0 b 1\n1 0 a 1\n", `q.txt:3: document "b" judged twice for query "1"`},
		{"duplicate before a bad line", "1 0 d1 1\n1 0 d1 2\n1 0 d2 x\n", `q.txt:2: document "d1" judged twice for query "1"`},
		{"BEIR duplicate", "query-id corpus-id score\n1 d1 1\n1 d1 0\n", `q.txt:3: document "d1" judged twice for query "1"`},
		{"empty", "", `q.txt: no judgments`},
		{"blank lines only", "\n  \n\n", `q.txt: no judgments`},
		{"BEIR header only", "query-id\tcorpus-id\tscore\n", `q.txt: no judgments`},
		{"grade with a plus sign", "1 0 d1 +1\n", `q.txt:1: relevance must be an integer (got "+1")`},
		{"not UTF-8 in a document id", "1 0 d\xff 1\n", `q.txt:1: document id "d\xff" is not valid UTF-8`},
		{"not UTF-8 in a query id", "1 0 d1 1\n\xc3( 0 d1 1\n", `q.txt:2: query id "\xc3(" is not valid UTF-8`},
		{"NUL in a document id", "1 0 d\x001 1\n", `q.txt:1: document id "d\x001" holds the control character '\x00'`},
		{"escape in a query id", "q\x1b 0 d1 1\n", `q.txt:1: query id "q\x1b" holds the control character '\x1b'`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := trec.ReadQrels(strings.NewReader(tt.in), "q.txt")
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

func TestReadRun(t *testing.T) {
	got, err := trec.ReadRunFile("testdata/small.run")
	if err != nil {
		t.Fatal(err)
	}
	want := trec.Run{Tag: "tagA", Queries: map[string][]trec.Result{
		"1": {{DocNo: "d2", Score: 2.5}, {DocNo: "d1", Score: 1}, {DocNo: "d4", Score: 0.5}},
		"2": {{DocNo: "d9", Score: -0.03}},
	}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	if n := got.NumResults(); n != 4 {
		t.Errorf("NumResults = %d, want 4", n)
	}
}

func TestReadRunErrors(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"too few fields", "1 Q0 d1 1 2.0\n", `r.txt:1: expected at least 6 fields "qid Q0 docno rank score tag" (got "1 Q0 d1 1 2.0")`},
		{"crlf kept out of message", "1 Q0 d1 1\r\n", `(got "1 Q0 d1 1")`},
		{"bad rank", "1 Q0 d1 1 2 t\n1 Q0 d2 x 2 t\n", `r.txt:2: rank must be a plain non-negative integer (got "x")`},
		{"rank with a plus sign", "1 Q0 d1 +1 2 t\n", `r.txt:1: rank must be a plain non-negative integer (got "+1")`},
		{"negative rank", "1 Q0 d1 -1 2 t\n", `r.txt:1: rank must be a plain non-negative integer (got "-1")`},
		{"rank with an underscore", "1 Q0 d1 1_0 2 t\n", `r.txt:1: rank must be a plain non-negative integer (got "1_0")`},
		{"bad score", "1 Q0 d1 1 high t\n", `r.txt:1: score must be a finite decimal number (got "high")`},
		{"nan score", "1 Q0 d1 1 NaN t\n", `r.txt:1: score must be a finite decimal number (got "NaN")`},
		{"no final newline", "1 Q0 d1 1 1 t\n1 Q0 d2", `r.txt:2: expected at least 6 fields`},
		{"underscore in score", "1 Q0 d1 1 1_000 t\n", `r.txt:1: score must be a finite decimal number (got "1_000")`},
		{"hexadecimal score", "1 Q0 d1 1 0x1p3 t\n", `r.txt:1: score must be a finite decimal number (got "0x1p3")`},
		{"infinite score", "1 Q0 d1 1 -Infinity t\n", `r.txt:1: score must be a finite decimal number (got "-Infinity")`},
		{"overflowing score", "1 Q0 d1 1 1e400 t\n", `r.txt:1: score must be a finite decimal number (got "1e400")`},
		{"not UTF-8 in a document id", "1 Q0 d\xfe 1 1 t\n", `r.txt:1: document id "d\xfe" is not valid UTF-8`},
		{"NUL in a query id", "1\x00 Q0 d1 1 1 t\n", `r.txt:1: query id "1\x00" holds the control character '\x00'`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := trec.ReadRun(strings.NewReader(tt.in), "r.txt")
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

func TestWriteRunRoundTrip(t *testing.T) {
	in := trec.Run{Tag: "bm25", Queries: map[string][]trec.Result{
		"q2": {{DocNo: "b", Score: 0.1}, {DocNo: "a", Score: 1.0 / 3}},
		"q1": {{DocNo: "c", Score: 7}},
	}}
	var buf bytes.Buffer
	if err := trec.WriteRun(&buf, in); err != nil {
		t.Fatal(err)
	}
	wantText := "q1 Q0 c 1 7 bm25\nq2 Q0 b 1 0.1 bm25\nq2 Q0 a 2 0.3333333333333333 bm25\n"
	if buf.String() != wantText {
		t.Fatalf("WriteRun wrote\n%s\nwant\n%s", buf.String(), wantText)
	}
	out, err := trec.ReadRun(&buf, "roundtrip")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(out, in) {
		t.Fatalf("round trip: got %+v, want %+v", out, in)
	}
}

func TestWriteRunRejectsWhitespace(t *testing.T) {
	tests := []struct {
		name string
		run  trec.Run
		want string
	}{
		{"doc id", trec.Run{Queries: map[string][]trec.Result{"q": {{DocNo: "a b"}}}}, `document id "a b" contains whitespace`},
		{"query id", trec.Run{Queries: map[string][]trec.Result{"q 1": {{DocNo: "a"}}}}, `query id "q 1" contains whitespace`},
		{"empty doc", trec.Run{Queries: map[string][]trec.Result{"q": {{}}}}, `empty document id`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := trec.WriteRun(&bytes.Buffer{}, tt.run)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

func TestWriteQuery(t *testing.T) {
	var buf bytes.Buffer
	if err := trec.WriteQuery(&buf, "7", []trec.Result{{DocNo: "x", Score: 2}}, ""); err != nil {
		t.Fatal(err)
	}
	if got, want := buf.String(), "7 Q0 x 1 2 run\n"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}

func TestScanRunBlocks(t *testing.T) {
	in := "1 Q0 a 1 3 t\n1 Q0 b 2 2 t\n2 Q0 c 1 1 t\n\n1 Q0 d 3 0 t\n"
	type block struct {
		qid  string
		docs []string
	}
	var got []block
	tag, err := trec.ScanRun(strings.NewReader(in), "r.txt", func(qid string, results []trec.Result) error {
		b := block{qid: qid}
		for _, r := range results {
			b.docs = append(b.docs, r.DocNo)
		}
		got = append(got, b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []block{{"1", []string{"a", "b"}}, {"2", []string{"c"}}, {"1", []string{"d"}}}
	if tag != "t" || !reflect.DeepEqual(got, want) {
		t.Fatalf("tag %q, blocks %v; want \"t\", %v", tag, got, want)
	}
	stop := errors.New("stop")
	_, err = trec.ScanRun(strings.NewReader(in), "r.txt", func(string, []trec.Result) error { return stop })
	if !errors.Is(err, stop) {
		t.Fatalf("error = %v, want the callback's", err)
	}
}

// TestWriteQrels: qrels written in sorted order read back equal; an id
// with whitespace is refused.
func TestWriteQrels(t *testing.T) {
	q := trec.Qrels{"q2": {"d9": 1, "d1": -1}, "q1": {"d3": 3, "d2": 0}}
	var b strings.Builder
	if err := trec.WriteQrels(&b, q); err != nil {
		t.Fatal(err)
	}
	want := "q1 0 d2 0\nq1 0 d3 3\nq2 0 d1 -1\nq2 0 d9 1\n"
	if b.String() != want {
		t.Fatalf("got\n%s\nwant\n%s", b.String(), want)
	}
	back, err := trec.ReadQrels(strings.NewReader(b.String()), "q")
	if err != nil || !reflect.DeepEqual(back, q) {
		t.Errorf("read back %v, %v", back, err)
	}
	if err := trec.WriteQrels(&strings.Builder{}, trec.Qrels{"q1": {"a b": 1}}); err == nil || !strings.Contains(err.Error(), `document id "a b" contains whitespace`) {
		t.Errorf("id with a space: %v", err)
	}
}

// TestByteOrderMarkSkipped reads a qrels file and a run that start with a
// UTF-8 byte-order mark as if it were not there.
func TestByteOrderMarkSkipped(t *testing.T) {
	q, err := trec.ReadQrels(strings.NewReader("\ufeff1 0 d1 1\n"), "q.txt")
	if err != nil {
		t.Fatal(err)
	}
	if want := (trec.Qrels{"1": {"d1": 1}}); !reflect.DeepEqual(q, want) {
		t.Errorf("qrels %v, want %v", q, want)
	}
	r, err := trec.ReadRun(strings.NewReader("\ufeff1 Q0 d1 1 2.5 t\n"), "r.txt")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := r.Queries["1"]; !ok || len(r.Queries) != 1 {
		t.Errorf("run queries %v, want only \"1\"", r.Queries)
	}
}
