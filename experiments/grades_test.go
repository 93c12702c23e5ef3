package experiments_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/experiments"
)

func intp(v int) *int { return &v }

// writeSet writes a TREC topics file and its qrels under a temporary
// folder and returns their paths.
func writeSet(t *testing.T, qrels string) (string, string) {
	t.Helper()
	dir := t.TempDir()
	topics := filepath.Join(dir, "topics.tsv")
	if err := os.WriteFile(topics, []byte("q1\treturn a damaged item\nq2\tshipping abroad\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	qpath := filepath.Join(dir, "qrels.txt")
	if err := os.WriteFile(qpath, []byte(qrels), 0o644); err != nil {
		t.Fatal(err)
	}
	return topics, qpath
}

func TestGradeScales(t *testing.T) {
	best1 := map[int]int{1: 4, 2: 3, 3: 2, 4: 1, 5: 0}
	tests := []struct {
		name   string
		qrels  string
		grades experiments.GradeScale
		want   map[string]int // query/doc -> grade
		scale  string
		err    string
	}{
		{name: "0-3 as before", qrels: "q1 0 a 3\nq1 0 b 2\nq2 0 c 1\n",
			want: map[string]int{"q1/a": 3, "q1/b": 2, "q2/c": 1}, scale: "0-3 (relevant >= 1, strong >= 2, exact >= 3)"},
		{name: "a binary set keeps the 0-3 scale", qrels: "q1 0 a 1\nq2 0 c 0\n",
			want: map[string]int{"q1/a": 1, "q2/c": 0}, scale: "0-3 (relevant >= 1, strong >= 2, exact >= 3)"},
		{name: "0-4 from the data", qrels: "q1 0 a 4\nq1 0 b 3\nq2 0 c 2\nq2 0 d -1\n",
			want: map[string]int{"q1/a": 4, "q1/b": 3, "q2/c": 2, "q2/d": 0}, scale: "0-4 (relevant >= 1, strong >= 3, exact >= 4)"},
		{name: "0-6 from the data", qrels: "q1 0 a 6\nq2 0 c 1\n",
			want: map[string]int{"q1/a": 6, "q2/c": 1}, scale: "0-6 (relevant >= 1, strong >= 4, exact >= 6)"},
		{name: "max set above the data", qrels: "q1 0 a 3\nq2 0 c 1\n", grades: experiments.GradeScale{Max: intp(4)},
			want: map[string]int{"q1/a": 3, "q2/c": 1}, scale: "0-4 (relevant >= 1, strong >= 3, exact >= 4)"},
		{name: "binary with max 1", qrels: "q1 0 a 1\nq2 0 c 0\n", grades: experiments.GradeScale{Max: intp(1)},
			want: map[string]int{"q1/a": 1, "q2/c": 0}, scale: "0-1 (relevant >= 1, strong >= 1, exact >= 1)"},
		{name: "thresholds set", qrels: "q1 0 a 4\nq2 0 c 2\n",
			grades: experiments.GradeScale{Relevant: intp(2), Strong: intp(2), Exact: intp(3)},
			want:   map[string]int{"q1/a": 4, "q2/c": 2}, scale: "0-4 (relevant >= 2, strong >= 2, exact >= 3)"},
		{name: "1 is best, mapped", qrels: "q1 0 a 1\nq1 0 b 4\nq2 0 c 2\nq2 0 d 5\n", grades: experiments.GradeScale{Map: best1},
			want:  map[string]int{"q1/a": 4, "q1/b": 1, "q2/c": 3, "q2/d": 0},
			scale: "0-4 (relevant >= 1, strong >= 3, exact >= 4), mapped 1->4 2->3 3->2 4->1 5->0"},
		{name: "grade not in the map", qrels: "q1 0 a 1\nq2 0 c 7\n", grades: experiments.GradeScale{Map: best1},
			err: "qrels.txt:2: rel: grade 7 is not in dataset.grades.map (which maps 1->4 2->3 3->2 4->1 5->0)"},
		{name: "grade above max", qrels: "q1 0 a 4\nq2 0 c 1\n", grades: experiments.GradeScale{Max: intp(3)},
			err: "qrels.txt:1: rel: grade out of range: dataset.grades.max is 3 (got 4)"},
		{name: "grade above 100", qrels: "q1 0 a 101\nq2 0 c 1\n",
			err: "qrels.txt:1: rel: grade out of range: must be at most 100 (got 101)"},
		{name: "relevant above the default strong", qrels: "q1 0 a 3\nq2 0 c 1\n", grades: experiments.GradeScale{Relevant: intp(3)},
			want: map[string]int{"q1/a": 3, "q2/c": 1}, scale: "0-3 (relevant >= 3, strong >= 3, exact >= 3)"},
		{name: "exact above the data's max", qrels: "q1 0 a 3\nq2 0 c 1\n", grades: experiments.GradeScale{Exact: intp(5)},
			err: "dataset.grades: thresholds must satisfy 1 <= relevant <= strong <= exact <= max (got relevant 1, strong 2, exact 5, max 3)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			topics, qrels := writeSet(t, tc.qrels)
			gs, err := experiments.LoadGoldenSet(topics, experiments.LoadOptions{Judgments: qrels, Grades: tc.grades})
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one containing %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := gs.Scale.String(); got != tc.scale {
				t.Errorf("scale %q, want %q", got, tc.scale)
			}
			got := map[string]int{}
			for _, q := range gs.Queries {
				for _, j := range q.Judgments {
					got[q.ID+"/"+j.DocID] = j.Grade
				}
			}
			if len(got) != len(tc.want) {
				t.Errorf("grades %v, want %v", got, tc.want)
			}
			for k, v := range tc.want {
				if got[k] != v {
					t.Errorf("grade of %s = %d, want %d (all: %v)", k, got[k], v, got)
				}
			}
		})
	}
}

// Labels follow the scale: high is the exact threshold, partial the
// strong one, weak the relevant one.
func TestGradeLabelsFollowTheScale(t *testing.T) {
	data := []byte(`[{"id": "q1", "query": "a", "expected_passages": [
		{"doc_id": "h", "relevance": "high"}, {"doc_id": "p", "relevance": "partial"},
		{"doc_id": "w", "relevance": "weak"}, {"doc_id": "i", "relevance": "irrelevant"},
		{"doc_id": "n", "relevance": 4}]}]`)
	path := filepath.Join(t.TempDir(), "g.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	gs, err := experiments.LoadGoldenSet(path, experiments.LoadOptions{Grades: experiments.GradeScale{Relevant: intp(2)}})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{"h": 4, "p": 3, "w": 2, "i": 0, "n": 4}
	for _, j := range gs.Queries[0].Judgments {
		if j.Grade != want[j.DocID] {
			t.Errorf("%s: grade %d, want %d", j.DocID, j.Grade, want[j.DocID])
		}
	}
}

func TestGradeScaleValidate(t *testing.T) {
	tests := []struct {
		name string
		g    experiments.GradeScale
		want string
	}{
		{"ok", experiments.GradeScale{Max: intp(4), Map: map[int]int{1: 4, 4: 1}, Relevant: intp(2), Strong: intp(3), Exact: intp(4)}, ""},
		{"max too low", experiments.GradeScale{Max: intp(0)}, "dataset.grades.max: must be between 1 and 100 (got 0)"},
		{"max too high", experiments.GradeScale{Max: intp(101)}, "dataset.grades.max: must be between 1 and 100 (got 101)"},
		{"map above max", experiments.GradeScale{Max: intp(4), Map: map[int]int{1: 5}}, "dataset.grades.map.1: must map to a grade between 0 and 4 (got 5)"},
		{"map negative", experiments.GradeScale{Map: map[int]int{1: -1}}, "dataset.grades.map.1: must map to a grade between 0 and 100 (got -1)"},
		{"relevant 0", experiments.GradeScale{Relevant: intp(0)}, "dataset.grades.relevant: must be between 1 and 100 (got 0)"},
		{"exact above max", experiments.GradeScale{Max: intp(3), Exact: intp(4)}, "dataset.grades.exact: must be between 1 and 3 (got 4)"},
		{"strong below relevant", experiments.GradeScale{Relevant: intp(3), Strong: intp(2)},
			"dataset.grades.strong: must be >= relevant (3): thresholds need relevant <= strong <= exact (got 2)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.g.Validate()
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tc.want {
				t.Errorf("error %q, want %q", got, tc.want)
			}
			d := experiments.DatasetConfig{Path: "g.json", Grades: tc.g}
			if err := d.Validate(); (err != nil) != (tc.want != "") {
				t.Errorf("DatasetConfig.Validate: %v, want an error %v", err, tc.want != "")
			}
		})
	}
}
