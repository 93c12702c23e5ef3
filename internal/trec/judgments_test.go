package trec_test

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/internal/trec"
)

// TestReadJudgments: each query's judgments come sorted by document id,
// also when its lines are spread over blocks, and convert to and from
// Qrels unchanged.
func TestReadJudgments(t *testing.T) {
	in := "q2 0 b 1\nq1 0 z 2\nq1 0 a 0\n\nq2 0 a -1\nq1 0 m 3\n"
	got, err := trec.ReadJudgments(strings.NewReader(in), "q.txt")
	if err != nil {
		t.Fatal(err)
	}
	want := trec.Judgments{
		"q1": {{DocNo: "a", Rel: 0}, {DocNo: "m", Rel: 3}, {DocNo: "z", Rel: 2}},
		"q2": {{DocNo: "a", Rel: -1}, {DocNo: "b", Rel: 1}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	if n := got.NumJudged(); n != 5 {
		t.Errorf("NumJudged = %d, want 5", n)
	}
	q, err := trec.ReadQrels(strings.NewReader(in), "q.txt")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Qrels(), q) || !reflect.DeepEqual(q.Judgments(), want) {
		t.Fatalf("conversions: %v and %v, want %v and %v", got.Qrels(), q.Judgments(), q, want)
	}
}

// TestReadJudgmentsMany reads qrels of many queries, more than one slab
// of judgments, every judgment in place.
func TestReadJudgmentsMany(t *testing.T) {
	var b strings.Builder
	want := trec.Qrels{}
	for q := range 300 {
		qid := fmt.Sprintf("q%d", q)
		want[qid] = map[string]int{}
		for d := range 150 {
			doc := fmt.Sprintf("d%d", (d*7919)%1000)
			fmt.Fprintf(&b, "%s 0 %s %d\n", qid, doc, d%3)
			want[qid][doc] = d % 3
		}
	}
	j, err := trec.ReadJudgments(strings.NewReader(b.String()), "big")
	if err != nil {
		t.Fatal(err)
	}
	if j.NumJudged() != 300*150 || !reflect.DeepEqual(j.Qrels(), want) {
		t.Fatalf("%d judgments, not the %d written", j.NumJudged(), 300*150)
	}
	if _, err := trec.ReadJudgmentsFile("testdata/missing.qrels"); err == nil || !strings.Contains(err.Error(), "read qrels:") {
		t.Fatalf("missing file: error %v", err)
	}
}
