package verdict

import (
	"fmt"
	"io"
	"strings"

	"github.com/fusiontune/fusiontune/runs"
)

// WriteGates prints the gates checked on entry, each with its value, and
// returns an error listing the failed ones when one failed. Without gates it prints nothing.
func WriteGates(w io.Writer, run *runs.Run, entry runs.Entry, results []GateResult) error {
	if len(results) == 0 {
		return nil
	}
	fmt.Fprintf(w, "gates on trial %s (run %s):\n", entry.Name, run.ID())
	for _, r := range results {
		fmt.Fprintf(w, "  %s\n", r)
	}
	failed := FailedGates(results)
	if len(failed) == 0 {
		return nil
	}
	texts := make([]string, len(failed))
	for i, r := range failed {
		texts[i] = r.Text
	}
	return fmt.Errorf("%d of %d gates failed on trial %s: %s", len(failed), len(results), entry.Name, strings.Join(texts, ", "))
}

// NotPromoted says which failing gates stopped --apply-best: "not
// promoted: gate Recall@3 >= 0.80 failed (0.7100)".
func NotPromoted(results []GateResult) string {
	var parts []string
	for _, r := range FailedGates(results) {
		if r.Measured {
			parts = append(parts, fmt.Sprintf("gate %s failed (%.4f)", r.Text, r.Value))
		} else {
			parts = append(parts, fmt.Sprintf("gate %s failed (%s)", r.Text, r.Detail))
		}
	}
	return "not promoted: " + strings.Join(parts, "; ")
}
