package trec_test

import (
	"bytes"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/fusiontune/fusiontune/internal/trec"
)

func FuzzReadQrels(f *testing.F) {
	f.Add("1 0 d1 3\n1 0 d2 0\n")
	f.Add("1 0 d1\n")
	f.Add("\n\n2\t0\tx -1\r\n")
	f.Fuzz(func(t *testing.T, in string) {
		q, err := trec.ReadQrels(strings.NewReader(in), "fuzz")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz:") {
				t.Fatalf("error without file position: %v", err)
			}
			return
		}
		j, err := trec.ReadJudgments(strings.NewReader(in), "fuzz")
		if err != nil {
			t.Fatalf("ReadJudgments: %v where ReadQrels read it", err)
		}
		for qid, docs := range j {
			if !slices.IsSortedFunc(docs, func(a, b trec.Judgment) int { return strings.Compare(a.DocNo, b.DocNo) }) {
				t.Fatalf("query %q: judgments not sorted: %v", qid, docs)
			}
			for _, d := range docs {
				if rel, ok := q[qid][d.DocNo]; !ok || rel != d.Rel {
					t.Fatalf("query %q: judgment %v not in the qrels", qid, d)
				}
			}
		}
		if j.NumJudged() != q.NumJudged() {
			t.Fatalf("%d judgments, %d in the qrels", j.NumJudged(), q.NumJudged())
		}
		for qid, docs := range q {
			if qid == "" || strings.ContainsFunc(qid, unprintable) || !utf8.ValidString(qid) {
				t.Fatalf("bad query id %q", qid)
			}
			for d := range docs {
				if d == "" || strings.ContainsFunc(d, unprintable) || !utf8.ValidString(d) {
					t.Fatalf("bad doc id %q", d)
				}
			}
		}
	})
}

// unprintable reports the characters no id may hold: whitespace and
// control characters.
func unprintable(r rune) bool { return r <= ' ' || r == 0x7f }

func FuzzReadRun(f *testing.F) {
	f.Add("1 Q0 d1 1 2.5 t\n1 Q0 d2 2 1 t\n")
	f.Add("1 Q0 d1 1 NaN t\n")
	f.Add("1 Q0 d1 x 1 t")
	f.Fuzz(func(t *testing.T, in string) {
		seq, tagSeq, errSeq := scanAll(trec.ScanRun, in)
		tr, tagTr, errTr := scanAll(trec.ScanRunTransient, in)
		if fmt.Sprint(errSeq) != fmt.Sprint(errTr) || tagSeq != tagTr || !reflect.DeepEqual(seq, tr) {
			t.Fatalf("ScanRunTransient differs from ScanRun: %v %q %v; %v %q %v", errTr, tagTr, tr, errSeq, tagSeq, seq)
		}
		r, err := trec.ReadRun(strings.NewReader(in), "fuzz")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz:") {
				t.Fatalf("error without file position: %v", err)
			}
			return
		}
		// Whatever parses must survive a write and a re-read unchanged.
		var buf bytes.Buffer
		if err := trec.WriteRun(&buf, r); err != nil {
			t.Fatalf("write parsed run: %v", err)
		}
		back, err := trec.ReadRun(&buf, "again")
		if err != nil {
			t.Fatalf("re-read: %v", err)
		}
		if r.Tag == "" && len(r.Queries) == 0 {
			return
		}
		if len(r.Queries) > 0 && back.Tag != r.Tag {
			t.Fatalf("tag %q became %q", r.Tag, back.Tag)
		}
		for q := range r.Queries {
			if !reflect.DeepEqual(r.Queries[q], back.Queries[q]) {
				t.Fatalf("query %q: %v became %v", q, r.Queries[q], back.Queries[q])
			}
		}
	})
}
