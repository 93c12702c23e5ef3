package experiments_test

import (
	"fmt"
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
		{name: "a binary set is the binary scale", qrels: "q1 0 a 1\nq2 0 c 0\n",
			want: map[string]int{"q1/a": 1, "q2/c": 0}, scale: "binary (0-1: relevant = 1)"},
		{name: "0-4 from the data", qrels: "q1 0 a 4\nq1 0 b 3\nq2 0 c 2\nq2 0 d -1\n",
			want: map[string]int{"q1/a": 4, "q1/b": 3, "q2/c": 2, "q2/d": 0}, scale: "0-4 (relevant >= 1, strong >= 3, exact >= 4)"},
		{name: "0-6 from the data", qrels: "q1 0 a 6\nq2 0 c 1\n",
			want: map[string]int{"q1/a": 6, "q2/c": 1}, scale: "0-6 (relevant >= 1, strong >= 4, exact >= 6)"},
		{name: "max set above the data", qrels: "q1 0 a 3\nq2 0 c 1\n", grades: experiments.GradeScale{Max: intp(4)},
			want: map[string]int{"q1/a": 3, "q2/c": 1}, scale: "0-4 (relevant >= 1, strong >= 3, exact >= 4)"},
		{name: "binary with max 1", qrels: "q1 0 a 1\nq2 0 c 0\n", grades: experiments.GradeScale{Max: intp(1)},
			want: map[string]int{"q1/a": 1, "q2/c": 0}, scale: "binary (0-1: relevant = 1)"},
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

// TestLoneGrades: a lone grade above a gap in the scale (one 7 among 0-3
// judgments, one 2 among binary ones) does not make a new scale: it is a
// warning naming its line, read as the top grade of the others; many
// judgments above a gap, or a grade next to the others, do make the scale.
func TestLoneGrades(t *testing.T) {
	// set writes n judgments cycling through grades, then the extra lines.
	set := func(n int, grades []int, extra string) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "q%d 0 d%d %d\n", i%2+1, i, grades[i%len(grades)])
		}
		return b.String() + extra
	}
	tests := []struct {
		name   string
		qrels  string
		scale  string
		warn   string // "" none
		doc    string // the lone judgment's document
		readAs int
	}{
		{name: "one 7 among 0-3", qrels: set(40, []int{0, 1, 2, 3}, "q1 0 odd 7\n"), scale: "0-3 (relevant >= 1, strong >= 2, exact >= 3)",
			warn: "qrels.txt:41: rel: grade 7 is above the scale the other judgments use (0-3, 41 judgments): read as 3; set dataset.grades.max: 7 if the scale goes that high", doc: "odd", readAs: 3},
		{name: "one 2 among binary", qrels: set(30, []int{0, 1}, "q2 0 odd 2\n"), scale: "binary (0-1: relevant = 1)",
			warn: "qrels.txt:31: rel: grade 2 is above the scale the other judgments use (binary: 0 or 1, 31 judgments): read as 1; set dataset.grades.max: 2 if the scale goes that high", doc: "odd", readAs: 1},
		{name: "many 5s above a gap make the scale", qrels: set(40, []int{0, 1, 2, 3, 5}, ""), scale: "0-5 (relevant >= 1, strong >= 4, exact >= 5)"},
		{name: "a rare top grade next to the others", qrels: set(200, []int{0, 1, 2, 3}, "q1 0 top 4\n"), scale: "0-4 (relevant >= 1, strong >= 3, exact >= 4)", doc: "top", readAs: 4},
		{name: "too few judgments to call one lone", qrels: set(5, []int{0, 1}, "q1 0 odd 7\n"), scale: "0-7 (relevant >= 1, strong >= 5, exact >= 7)", doc: "odd", readAs: 7},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			topics, qrels := writeSet(t, tc.qrels)
			gs, err := experiments.LoadGoldenSet(topics, experiments.LoadOptions{Judgments: qrels})
			if err != nil {
				t.Fatal(err)
			}
			if got := gs.Scale.String(); got != tc.scale {
				t.Errorf("scale %q, want %q", got, tc.scale)
			}
			var warns []string
			for _, w := range gs.Warnings {
				warns = append(warns, w.Error())
			}
			switch {
			case tc.warn == "" && len(warns) > 0:
				t.Errorf("warnings %q, want none", warns)
			case tc.warn != "" && (len(warns) != 1 || !strings.HasSuffix(warns[0], tc.warn)):
				t.Errorf("warnings %q, want one ending %q", warns, tc.warn)
			}
			if tc.doc == "" {
				return
			}
			for _, q := range gs.Queries {
				for _, j := range q.Judgments {
					if j.DocID == tc.doc && j.Grade != tc.readAs {
						t.Errorf("%s graded %d, want %d", tc.doc, j.Grade, tc.readAs)
					}
				}
			}
		})
	}
}
