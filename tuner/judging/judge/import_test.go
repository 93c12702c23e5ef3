package judge_test

import (
	"strings"
	"testing"
	"time"

	"github.com/fusiontune/fusiontune/tuner/judging/judge"
	"github.com/fusiontune/fusiontune/tuner/judging/labels"
)

func TestImportKind(t *testing.T) {
	tests := []struct{ name, data, want string }{
		{"native labels", `{"dataset":"x","query":"q1","doc":"d1","grade":1,"judge":"m","source":"llm"}` + "\n", judge.KindLabels},
		{"filled jsonl", "\ufeff\n" + `{"dataset":"x","query":"q1","doc":"d1","grade":1}` + "\n", judge.KindFilled},
		{"broken json line", "{oops\n", judge.KindFilled},
		{"filled tsv", "dataset\tquery\tdoc\tgrade\trationale\n", judge.KindFilled},
		{"trec qrels", "q1 0 d1 1\n", judge.KindQrels},
		{"beir tsv", "query-id\tcorpus-id\tscore\nq1\td1\t1\n", judge.KindQrels},
		{"empty", "", judge.KindQrels},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := judge.ImportKind([]byte(tc.data)); got != tc.want {
				t.Errorf("ImportKind = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestImport(t *testing.T) {
	now := time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC)
	spec := judge.ImportSpec{Rules: labels.Rules{Dataset: "x", Queries: map[string]bool{"q1": true}, Docs: map[string]bool{"d1": true, "d2": true}, MaxGrade: 2}, Judge: "ann", Source: labels.SourceHuman, Time: now}
	tests := []struct {
		name, data      string
		labels, skipped int
		err             string
	}{
		{name: "qrels", data: "q1 0 d1 1\nq1 0 d2 2\n", labels: 2},
		{name: "filled tsv skips empty grades", data: "dataset\tquery\tdoc\tgrade\trationale\nx\tq1\td1\t1\t\nx\tq1\td2\t\t\n", labels: 1, skipped: 1},
		{name: "grade above the scale", data: "q1 0 d1 3\n", err: `f.txt: invalid label: 1 labels cannot be stored for dataset "x" (nothing appended):
  query "q1" doc "d1": grade 3 is off the golden set's scale 0..2`},
		{name: "document not in the corpus", data: "q1 0 d1 1\nq1 0 kb-9999 1\n", err: `f.txt: invalid label: 1 labels cannot be stored for dataset "x" (nothing appended):
  query "q1" doc "kb-9999": document "kb-9999" is not in the corpus`},
		{name: "same pair twice in one file", data: `{"dataset":"x","query":"q1","doc":"d1","grade":1,"judge":"m","source":"llm","time":"2026-11-24T00:00:00Z"}` + "\n" +
			`{"dataset":"x","query":"q1","doc":"d1","grade":2,"judge":"m","source":"llm","time":"2026-11-24T00:00:00Z"}` + "\n",
			err: `f.txt: invalid label: 1 labels cannot be stored for dataset "x" (nothing appended):
  query "q1" doc "d1": graded twice by "m": one grade per pair`},
		{name: "unknown query", data: "q9 0 d1 1\n", err: "f.txt: "},
		{name: "other dataset", data: `{"dataset":"y","query":"q1","doc":"d1","grade":1,"judge":"m","source":"llm","time":"2026-11-24T00:00:00Z"}` + "\n", err: "f.txt: "},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			im, err := judge.Import([]byte(tc.data), "f.txt", spec)
			if tc.err != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tc.err) {
					t.Fatalf("Import error %v, want one starting %q", err, tc.err)
				}
				return
			}
			if err != nil || len(im.Labels) != tc.labels || im.Skipped != tc.skipped {
				t.Fatalf("Import = %d labels, %d skipped, %v; want %d, %d", len(im.Labels), im.Skipped, err, tc.labels, tc.skipped)
			}
			for _, l := range im.Labels {
				if l.Dataset != "x" || l.Judge != "ann" || l.Source != labels.SourceHuman || !l.Time.Equal(now) {
					t.Errorf("label %+v: want dataset x, judge ann, source human, time %v", l, now)
				}
			}
		})
	}
}
