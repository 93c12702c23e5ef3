package labels_test

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/fusiontune/fusiontune/internal/trec"
	"github.com/fusiontune/fusiontune/tuner/judging/labels"
)

func TestJSONLRoundTrip(t *testing.T) {
	in := []labels.Label{
		lbl("q1", "d1", "alice", labels.SourceHuman, 2, 0),
		{Dataset: "demo", Query: "q 2", Doc: "d\"x", Grade: 0, Judge: "llm:m@abcdef12", Source: labels.SourceLLM,
			Time: t0.Add(time.Nanosecond), Rationale: "not <about> it", Confidence: 0.5},
	}
	var buf bytes.Buffer
	if err := labels.WriteJSONL(&buf, in); err != nil {
		t.Fatal(err)
	}
	want := `{"dataset":"demo","query":"q1","doc":"d1","grade":2,"judge":"alice","source":"human","time":"2026-11-24T10:00:00Z"}
{"dataset":"demo","query":"q 2","doc":"d\"x","grade":0,"judge":"llm:m@abcdef12","source":"llm","time":"2026-11-24T10:00:00.000000001Z","rationale":"not <about> it","confidence":0.5}
`
	if buf.String() != want {
		t.Fatalf("WriteJSONL:\n%s\nwant:\n%s", buf.String(), want)
	}
	out, err := labels.ReadJSONL(&buf, "l.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(render(out), "\n") != strings.Join(render(in), "\n") {
		t.Fatalf("round trip:\n%v\nwant\n%v", render(out), render(in))
	}
}

func TestReadJSONLErrors(t *testing.T) {
	in := `{"dataset":"demo","query":"q1","doc":"d1","grade":2,"judge":"alice","source":"human"}

{"dataset":"demo","query":"q1","doc":"d1","grade":2,"judge":"alice"}
{"dataset":"demo","query":"q1","doc":"d1","grade":200,"judge":"alice","source":"human"}
{"dataset":"demo","query":"q1","doc":"d1","grade":2,"judge":"alice","source":"human","extra":1}
{"dataset":"demo","query":"q1","doc":"d1","grade":2,"judge":"alice","source":"human","time":"yesterday"}
{"dataset":"demo","query":"q1","doc":"d1","gra
{"dataset":"demo","query":"q1","doc":"d1","grade":2,"grade":3,"judge":"alice","source":"human"}`
	_, err := labels.ReadJSONL(strings.NewReader(in), "l.jsonl")
	for _, want := range []string{
		"l.jsonl:3: missing source",
		"l.jsonl:4: query \"q1\" doc \"d1\" judge \"alice\": invalid label: grade 200 out of range 0..100",
		`l.jsonl:5: not a label object: json: unknown field "extra"`,
		`l.jsonl:6: time "yesterday": want RFC 3339`,
		"l.jsonl:7: not a label object: unexpected EOF",
		`l.jsonl:8: key "grade" given twice`,
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ReadJSONL error %v\nlacks %q", err, want)
		}
	}
}

func TestQrels(t *testing.T) {
	q := trec.Qrels{"q2": {"d1": -1}, "q1": {"d2": 1, "d1": 3}}
	ls := labels.FromQrels(q, labels.Label{Dataset: "demo", Judge: "file:qrels.txt", Source: labels.SourceFile, Time: t0})
	want := []string{
		"q1 d1 file:qrels.txt file 3 2026-11-24T10:00:00Z  0",
		"q1 d2 file:qrels.txt file 1 2026-11-24T10:00:00Z  0",
		"q2 d1 file:qrels.txt file 0 2026-11-24T10:00:00Z  0",
	}
	if strings.Join(render(ls), "\n") != strings.Join(want, "\n") {
		t.Fatalf("FromQrels:\n%s", strings.Join(render(ls), "\n"))
	}
	var buf bytes.Buffer
	if err := trec.WriteQrels(&buf, labels.ToQrels(ls)); err != nil {
		t.Fatal(err)
	}
	if buf.String() != "q1 0 d1 3\nq1 0 d2 1\nq2 0 d1 0\n" {
		t.Fatalf("ToQrels: %q", buf.String())
	}
}

// TestRulesCheck: labels for another dataset, an unknown query, a
// document the corpus lacks, a grade off the scale or a pair graded twice
// by one judge are refused, every one named.
func TestRulesCheck(t *testing.T) {
	rules := labels.Rules{Dataset: "demo", Queries: map[string]bool{"q1": true, "q2": true}, Docs: map[string]bool{"d1": true, "d2": true}, MaxGrade: 3}
	ok := lbl("q1", "d1", "a", labels.SourceHuman, 3, 0)
	tests := []struct {
		name  string
		rules labels.Rules
		ls    []labels.Label
		want  []string
	}{
		{name: "all known", rules: rules, ls: []labels.Label{ok, lbl("q2", "d1", "a", labels.SourceHuman, 0, 0), lbl("q1", "d1", "b", labels.SourceHuman, 1, 0)}},
		{name: "another dataset", rules: rules, ls: []labels.Label{{Dataset: "scifact", Query: "q1", Doc: "d2"}},
			want: []string{`1 labels cannot be stored for dataset "demo"`, `dataset "scifact" is not "demo"`}},
		{name: "unknown query", rules: rules, ls: []labels.Label{ok, lbl("q9", "d1", "a", labels.SourceHuman, 1, 0)},
			want: []string{`query "q9" doc "d1": query "q9" is not in the golden set`}},
		{name: "document not in the corpus", rules: rules, ls: []labels.Label{lbl("q1", "kb-9999", "a", labels.SourceHuman, 1, 0)},
			want: []string{`query "q1" doc "kb-9999": document "kb-9999" is not in the corpus`}},
		{name: "no corpus: any document", rules: labels.Rules{Dataset: "demo"}, ls: []labels.Label{lbl("q1", "kb-9999", "a", labels.SourceHuman, 1, 0)}},
		{name: "grade above the scale", rules: rules, ls: []labels.Label{lbl("q1", "d2", "a", labels.SourceFile, 9, 0)},
			want: []string{`grade 9 is off the golden set's scale 0..3`}},
		{name: "same pair twice", rules: rules, ls: []labels.Label{ok, lbl("q1", "d1", "a", labels.SourceHuman, 2, 0)},
			want: []string{`query "q1" doc "d1": graded twice by "a": one grade per pair`}},
		{name: "many", rules: rules, ls: func() []labels.Label {
			var ls []labels.Label
			for i := range 25 {
				ls = append(ls, lbl(fmt.Sprintf("x%d", i), "d1", "a", labels.SourceHuman, 1, 0))
			}
			return ls
		}(), want: []string{"25 labels cannot be stored", "(and 5 more)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.rules.Check(tt.ls)
			if len(tt.want) == 0 {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if !errors.Is(err, labels.ErrInvalid) {
				t.Fatalf("Check = %v, want ErrInvalid", err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q\nwant it to contain %q", err, w)
				}
			}
		})
	}
}
