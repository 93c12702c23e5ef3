package trecevaltest_test

import (
	"testing"

	"github.com/fusiontune/fusiontune/metrics/treceval/trecevaltest"
)

func TestCompare(t *testing.T) {
	expected := "map                   \tall\t0.5000\nndcg_rel              \tall\t0.3000\nP_5                   \tall\t0.2000\n"
	tests := []struct {
		name              string
		got               string
		matched, problems int
	}{
		{"identical where implemented", "map                   \tall\t0.5000\nP_5                   \tall\t0.2000\n", 2, 0},
		{"different value", "map                   \tall\t0.5001\nP_5                   \tall\t0.2000\n", 1, 2},
		{"extra line", "map                   \tall\t0.5000\nP_5                   \tall\t0.2000\nP_10                  \tall\t0.1000\n", 2, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := trecevaltest.Compare(expected, tt.got)
			if r.Matched != tt.matched || len(r.Problems) != tt.problems || r.Skipped != 1 {
				t.Errorf("matched %d skipped %d problems %q; want %d, 1, %d problems",
					r.Matched, r.Skipped, r.Problems, tt.matched, tt.problems)
			}
		})
	}
}
