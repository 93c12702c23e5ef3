package report

import (
	"reflect"
	"testing"

	"github.com/fusiontune/fusiontune/runs"
)

func TestParseLabels(t *testing.T) {
	tests := []struct {
		in       string
		maxGrade int
		want     []labelCell
	}{
		{"1:L3 | 2:L? | 3:L0", 3, []labelCell{{"1", "3", "g3"}, {"2", "?", "unjudged"}, {"3", "0", "g0"}}},
		{"1:L3 | 2:L2", 0, []labelCell{{"1", "3", "g3"}, {"2", "2", "g2"}}}, // scale unknown: 0-3
		{"", 3, nil},
		// on 0-4, grade 4 is the top class; on 0-3 it stays there too
		{"1:L4 | 2:L1", 4, []labelCell{{"1", "4", "g3"}, {"2", "1", "g1"}}},
		{"1:L4", 3, []labelCell{{"1", "4", "g3"}}},
		{"1:L-1", 3, nil},
		{"1:L3 2:L1", 3, nil},
		{"garbage", 3, nil},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			if got := parseLabels(tc.in, tc.maxGrade); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("parseLabels(%q) = %v, want %v", tc.in, got, tc.want)
			}
		})
	}
}

func TestSigned(t *testing.T) {
	tests := []struct {
		in   float64
		want string
	}{
		{0.00264, "+0.0026"}, {-0.0203, "-0.0203"}, {-1e-13, "+0.0000"}, {0, "+0.0000"},
	}
	for _, tc := range tests {
		if got := signed(tc.in); got != tc.want {
			t.Errorf("signed(%g) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestParamCell: a value the trial sets, rounded for reading; one it
// leaves unset at the backend's recorded default; "—" when none was
// recorded.
func TestParamCell(t *testing.T) {
	e := runs.Entry{Params: map[string]any{"k": 60.0, "w": 0.9738285182219153, "m": "rrf", "r": []any{"bm25"}, "b": true},
		Defaults: map[string]any{"d": 100.0}}
	tests := []struct{ key, want string }{
		{"k", "60"}, {"w", "0.974"}, {"m", "rrf"}, {"r", "bm25"}, {"b", "true"}, {"d", "100 (default)"}, {"absent", "—"},
	}
	for _, tc := range tests {
		if got := paramCell(e, tc.key); got != tc.want {
			t.Errorf("paramCell(%q) = %q, want %q", tc.key, got, tc.want)
		}
	}
}
