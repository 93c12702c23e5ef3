package judge_test

import (
	"bytes"
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fusiontune/fusiontune/tuner/judging/judge"
	"github.com/fusiontune/fusiontune/tuner/judging/labels"
)

func readPool(t *testing.T, name string) ([]judge.PoolEntry, error) {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	return judge.ReadPool(f, name)
}

func TestReadPool(t *testing.T) {
	es, err := readPool(t, "pool.jsonl")
	if err != nil || len(es) != 3 || es[0].Doc != "d7" || es[0].Priority != 0.9 || es[2].Where != "pool.jsonl:3" {
		t.Fatalf("ReadPool = %+v, %v", es, err)
	}
	_, err = readPool(t, "bad_pool.jsonl")
	for _, want := range []string{
		`bad_pool.jsonl:2: query "q1" doc "d7" listed twice (first on line 1)`,
		"bad_pool.jsonl:3: missing query",
		`bad_pool.jsonl:4: not a pool pair {"dataset","query","doc",...}: json: unknown field "rank"`,
		"bad_pool.jsonl:5: not a pool pair",
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ReadPool error %v\nlacks %q", err, want)
		}
	}
}

func TestPairs(t *testing.T) {
	es, err := readPool(t, "pool.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	queries := map[string]string{"q1": "first query", "q2": "second"}
	docs := map[string]judge.Doc{"d7": {Title: "Seven", Text: "text 7"}, "d8": {Text: "text 8"}}
	ps, err := judge.Pairs(es, "demo", queries, docs)
	if err != nil || len(ps) != 3 || ps[0] != (judge.Pair{Query: "q1", QueryText: "first query", Doc: "d7", DocTitle: "Seven", DocText: "text 7"}) {
		t.Fatalf("Pairs = %+v, %v", ps, err)
	}
	_, err = judge.Pairs(es, "scifact", queries, docs)
	if !errors.Is(err, judge.ErrUnknown) || !strings.Contains(err.Error(), `3 pool pairs cannot be judged`) || !strings.Contains(err.Error(), `pool.jsonl:1: dataset "demo" is not the settings' "scifact" (--dataset-id demo picks it`) {
		t.Fatalf("Pairs, other dataset: %v", err)
	}
	_, err = judge.Pairs(es, "demo", map[string]string{"q1": "x"}, map[string]judge.Doc{"d7": {}})
	for _, want := range []string{`pool.jsonl:2: document "d8" is not in the corpus`, `pool.jsonl:3: query "q2" is not in the golden set`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Pairs error %v\nlacks %q", err, want)
		}
	}
	ls := []labels.Label{{Query: "q1", Doc: "d7", Judge: "alice"}, {Query: "q1", Doc: "d8", Judge: "bob"}}
	if got := judge.Unjudged(ps, ls, "alice"); len(got) != 2 || got[0].Doc != "d8" {
		t.Fatalf("Unjudged = %+v", got)
	}
}

func TestFileJudge(t *testing.T) {
	dir := t.TempDir()
	qrels := filepath.Join(dir, "hidden.qrels")
	os.WriteFile(qrels, []byte("q1 0 d7 2\nq2 0 d7 -1\nq1 0 d9 1\n"), 0o644)
	f, err := judge.NewFile(qrels, labels.Rules{Dataset: "demo", Queries: map[string]bool{"q1": true, "q2": true}})
	if err != nil {
		t.Fatal(err)
	}
	f.Now = func() time.Time { return time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC) }
	ps := []judge.Pair{{Query: "q1", Doc: "d7"}, {Query: "q1", Doc: "d8"}, {Query: "q2", Doc: "d7"}}
	ls, err := f.Judge(context.Background(), ps)
	if err != nil || len(ls) != 2 || ls[0].Grade != 2 || ls[1].Grade != 0 || ls[0].Judge != "file:hidden.qrels" || ls[0].Source != labels.SourceFile {
		t.Fatalf("Judge = %+v, %v", ls, err)
	}
	// BEIR tsv reads too.
	beir := filepath.Join(dir, "test.tsv")
	os.WriteFile(beir, []byte("query-id\tcorpus-id\tscore\nq1\td8\t1\n"), 0o644)
	if f, err := judge.NewFile(beir, labels.Rules{Dataset: "demo"}); err != nil || f.Name() != "file:test.tsv" {
		t.Fatalf("NewFile(beir): %v", err)
	}
	// Unknown query ids: the file is for another golden set.
	_, err = judge.NewFile(qrels, labels.Rules{Dataset: "demo", Queries: map[string]bool{"q1": true}})
	if !errors.Is(err, judge.ErrUnknown) || !strings.Contains(err.Error(), `1 query ids are not in the golden set of dataset "demo": "q2"`) {
		t.Fatalf("NewFile, unknown queries: %v", err)
	}
	// Grades the golden set's scale or corpus refuse: nothing judged.
	for _, tc := range []struct{ data, want string }{
		{"q1 0 d7 9\n", `query "q1" doc "d7": grade 9 is off the golden set's scale 0..3`},
		{"q1 0 kb-9999 1\n", `query "q1" doc "kb-9999": document "kb-9999" is not in the corpus`},
	} {
		os.WriteFile(qrels, []byte(tc.data), 0o644)
		_, err := judge.NewFile(qrels, labels.Rules{Dataset: "demo", Docs: map[string]bool{"d7": true}, MaxGrade: 3})
		if !errors.Is(err, labels.ErrInvalid) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("NewFile(%q) = %v, want %q", tc.data, err, tc.want)
		}
	}
}

// TestHumanRoundTrip exports pairs, fills in grades as a person would and
// reads them back, in both formats.
func TestHumanRoundTrip(t *testing.T) {
	ps := []judge.Pair{
		{Query: "q1", QueryText: "first\tquery", Doc: "d7", DocTitle: "Seven", DocText: "line one\nline two"},
		{Query: "q2", QueryText: "second", Doc: "d8", DocText: "eight"},
	}
	at := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	t.Run("tsv", func(t *testing.T) {
		var b bytes.Buffer
		if err := judge.ExportPairs(&b, "demo", ps, judge.FormatTSV); err != nil {
			t.Fatal(err)
		}
		want := "dataset\tquery\tdoc\tgrade\trationale\tquery_text\tdoc_title\tdoc_text\n" +
			"demo\tq1\td7\t\t\tfirst query\tSeven\tline one line two\n" +
			"demo\tq2\td8\t\t\tsecond\t\teight\n"
		if b.String() != want {
			t.Fatalf("export:\n%q\nwant\n%q", b.String(), want)
		}
		filled := strings.Replace(b.String(), "demo\tq1\td7\t\t", "demo\tq1\td7\t2\ton topic", 1)
		got, err := judge.ReadFilled(strings.NewReader(filled), "f.tsv", "alice", 3, at)
		if err != nil || got.Skipped != 1 || len(got.Labels) != 1 {
			t.Fatalf("ReadFilled = %+v, %v", got, err)
		}
		l := got.Labels[0]
		if l != (labels.Label{Dataset: "demo", Query: "q1", Doc: "d7", Grade: 2, Judge: "alice", Source: labels.SourceHuman, Time: at, Rationale: "on topic"}) {
			t.Fatalf("label %+v", l)
		}
	})
	t.Run("jsonl", func(t *testing.T) {
		var b bytes.Buffer
		if err := judge.ExportPairs(&b, "demo", ps, judge.FormatJSONL); err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(b.String(), `{"dataset":"demo","query":"q1","doc":"d7","grade":null,"rationale":"","query_text":"first\tquery"`) {
			t.Fatalf("export: %s", b.String())
		}
		filled := strings.Replace(b.String(), `"grade":null`, `"grade":3`, 1)
		filled = strings.Replace(filled, `"grade":null`, `"grade":"1"`, 1)
		got, err := judge.ReadFilled(strings.NewReader(filled), "f.jsonl", "bob", 3, at)
		if err != nil || got.Skipped != 0 || len(got.Labels) != 2 || got.Labels[0].Grade != 3 || got.Labels[1].Grade != 1 {
			t.Fatalf("ReadFilled = %+v, %v", got, err)
		}
	})
	t.Run("errors", func(t *testing.T) {
		bad := "dataset\tquery\tdoc\tgrade\n" +
			"demo\tq1\td7\t4\n" +
			"demo\tq1\td8\tgood\n" +
			"demo\t\td8\t1\n" +
			"demo\tq1\td9\t1\textra\n"
		_, err := judge.ReadFilled(strings.NewReader(bad), "f.tsv", "alice", 3, at)
		for _, want := range []string{`f.tsv:2: grade "4": want an integer in 0..3`, `f.tsv:3: grade "good"`, `f.tsv:4: query "" doc "d8" judge "alice": invalid label: query "" is empty`, "f.tsv:5: 5 cells, the header has 4"} {
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("ReadFilled error %v\nlacks %q", err, want)
			}
		}
		_, err = judge.ReadFilled(strings.NewReader("query\tgrade\nq1\t1\n"), "f.tsv", "alice", 3, at)
		if err == nil || !strings.Contains(err.Error(), "f.tsv:1: header lacks dataset, doc") {
			t.Errorf("ReadFilled, bad header: %v", err)
		}
		_, err = judge.ReadFilled(strings.NewReader(`{"dataset":"demo","query":"q1","doc":"d1","grade":1,"score":2}`), "f.jsonl", "alice", 3, at)
		if err == nil || !strings.Contains(err.Error(), `f.jsonl:1: not an exported pair`) {
			t.Errorf("ReadFilled, unknown field: %v", err)
		}
	})
}

// TestAgree checks kappa against hand-computed values.
func TestAgree(t *testing.T) {
	// Matrix (ref rows, judge columns) on grades 0..2:
	//   [2 1 0]
	//   [0 2 1]
	//   [0 0 2]
	// n = 8; row sums 3,3,2; column sums 2,3,3.
	// Linear weights of disagreement |i-j|/2: observed = (1*.5 + 1*.5)/8 = 0.125;
	// expected = sum w*r_i*c_j/64 = (.5*(3*3 + 3*2 + 3*3 + 2*3) + 1*(3*3 + 2*2))/64 = (.5*30 + 13)/64 = 28/64.
	// kappa_l = 1 - 0.125/(28/64) = 1 - 8/28 = 0.714286.
	// Quadratic (|i-j|/2)^2: observed = (.25 + .25)/8 = 0.0625;
	// expected = (.25*30 + 13)/64 = 20.5/64; kappa_q = 1 - 4/20.5 = 0.804878.
	var rs []judge.Rating
	add := func(ref, got, n int) {
		for range n {
			rs = append(rs, judge.Rating{Ref: ref, Got: got})
		}
	}
	add(0, 0, 2)
	add(0, 1, 1)
	add(1, 1, 2)
	add(1, 2, 1)
	add(2, 2, 2)
	a := judge.Agree(rs, 2)
	if a.N != 8 || math.Abs(a.KappaLinear-0.714286) > 1e-6 || math.Abs(a.KappaQuadratic-0.804878) > 1e-6 || a.Exact != 0.75 {
		t.Fatalf("Agree = %+v", a)
	}
	if a := judge.Agree(rs[:2], 2); !math.IsNaN(a.KappaQuadratic) {
		t.Fatalf("all one grade: kappa %v, want NaN", a.KappaQuadratic)
	}
	perfect := judge.Agree([]judge.Rating{{Ref: 0, Got: 0}, {Ref: 3, Got: 3}}, 3)
	if perfect.KappaLinear != 1 || perfect.KappaQuadratic != 1 {
		t.Fatalf("perfect agreement: %+v", perfect)
	}
}
