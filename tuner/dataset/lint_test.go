package dataset_test

import (
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/experiments"
	"github.com/fusiontune/fusiontune/tuner/dataset"
)

func TestLintGolden(t *testing.T) {
	tests := []struct {
		name    string
		o       dataset.LintOptions
		against string
		want    []string
	}{
		{
			name: "defaults",
			o:    dataset.DefaultLintOptions(),
			want: []string{
				`lint: 1 of 5 queries have fewer than 2 judgments: "q2" at testdata/lint/v2.yaml:10:5 (1)`,
				`lint: 2 of 5 queries have fewer than 2 relevant judgments (grade >= 1): "q2" at testdata/lint/v2.yaml:10:5 (1), "q3" at testdata/lint/v2.yaml:15:5 (0)`,
				`lint: 2 categories have fewer than 5 queries (no per-category interval): rare (1), howto (4)`,
				`lint: 1 query texts appear more than once: "q1" at testdata/lint/v2.yaml:4:5 = "q4" at testdata/lint/v2.yaml:21:5`,
			},
		},
		{
			name: "imbalance, relevant only",
			o:    dataset.LintOptions{MinRelevant: 1, MaxImbalance: 3},
			want: []string{
				`lint: 1 of 5 queries have fewer than 1 relevant judgments (grade >= 1): "q3" at testdata/lint/v2.yaml:15:5 (0)`,
				`lint: categories unbalanced: howto has 4 queries, rare 1 (more than 3 times as many)`,
				`lint: 1 query texts appear more than once`,
			},
		},
		{
			name:    "against the earlier version",
			o:       dataset.LintOptions{},
			against: "testdata/lint/v1.yaml",
			want: []string{
				`lint: 1 query texts appear more than once`,
				`lint: 1 query ids of testdata/lint/v1.yaml are gone: "q5" (testdata/lint/v1.yaml:13:5)`,
				`lint: 1 query ids of testdata/lint/v1.yaml now name another text: "q3": "shipping to Norway" at testdata/lint/v2.yaml:15:5, was "opening hours"`,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := dataset.LintGolden("testdata/lint/v2.yaml", experiments.LoadOptions{}, tt.o, tt.against)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("%d warnings, want %d: %v", len(got), len(tt.want), got)
			}
			for i, w := range tt.want {
				if !strings.HasPrefix(got[i].Error(), w) {
					t.Errorf("warning %d = %q, want it to start %q", i, got[i], w)
				}
			}
		})
	}
	if _, err := dataset.LintGolden("testdata/lint/v2.yaml", experiments.LoadOptions{}, dataset.LintOptions{}, "testdata/lint/nosuch.yaml"); err == nil || !strings.Contains(err.Error(), "--against") {
		t.Errorf("missing --against file: err = %v", err)
	}
}
