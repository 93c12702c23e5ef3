package cli_test

import (
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/cmd/tune/internal/cli"
)

// TestPrintUsageAligns: the summaries start in one column, however long
// the longest command name (check-quality is 13 characters).
func TestPrintUsageAligns(t *testing.T) {
	tests := []struct {
		name  string
		names []string
	}{
		{"short names", []string{"gate", "sweep"}},
		{"a name past twelve", []string{"gate", "check-quality", "ui"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var tab cli.Table
			for _, n := range tt.names {
				tab.Commands = append(tab.Commands, cli.Command{Name: n, Summary: "does " + n})
			}
			var b strings.Builder
			tab.PrintUsage(&b)
			col := -1
			for _, line := range strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n") {
				i := strings.Index(line, "does ")
				if i < 0 {
					t.Fatalf("line %q has no summary", line)
				}
				if col >= 0 && i != col {
					t.Fatalf("summaries start at columns %d and %d:\n%s", col, i, b.String())
				}
				col = i
			}
		})
	}
}
