package harvest

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/fusiontune/fusiontune/tuner/judging/labels"
)

// Check checks what `tune harvest` asks for before any log is read: the
// golden set to write, at least one log, the click model's MinExpected in
// (0, MaxMinExpected] and the sample (Options.Validate). Each error names
// its flag.
func (c Config) Check() error {
	switch {
	case c.Out == "":
		return errors.New("harvest: --out is required")
	case len(c.Logs) == 0:
		return errors.New("harvest: want one or more query logs")
	case c.Clicks.MinExpected <= 0 || c.Clicks.MinExpected > MaxMinExpected:
		return fmt.Errorf("harvest: --min-expected: want a number in (0, %g] (got %v)", MaxMinExpected, c.Clicks.MinExpected)
	}
	if p := c.Sample.Validate(); len(p) > 0 {
		return fmt.Errorf("harvest: --%s", p[0])
	}
	return nil
}

// Summary is what the harvest read and added to c.Out, two lines.
func (r *Result) Summary(c Config) string {
	o := c.Sample
	return fmt.Sprintf("harvest: %d searches, %d feedback events from %d files (%d bad lines skipped); %d distinct queries\n",
		len(r.Log.Searches), len(r.Log.Feedback), len(r.Log.Files), r.Log.Skipped, r.Distinct) +
		fmt.Sprintf("harvest: added %d queries (sample %s, n %d, seed %d) to %s\n", r.Added, o.Method, o.N, o.Seed, c.Out)
}

// AppendImplicit appends the harvest's implicit judgments to the label
// store at url as labels of dataset (AppendLabels) and returns the line
// saying how many it appended per grade and skipped.
func (r *Result) AppendImplicit(ctx context.Context, url, dataset string) (string, error) {
	byGrade, skipped, err := AppendLabels(ctx, url, r.Judgments, dataset, r.LastEvent)
	if err != nil {
		return "", fmt.Errorf("harvest: %w", err)
	}
	var parts []string
	for _, g := range slices.Sorted(maps.Keys(byGrade)) {
		parts = append(parts, fmt.Sprintf("grade %d: %d", g, byGrade[g]))
	}
	where, _ := labels.ParseURL(url)
	grades := ""
	if len(parts) > 0 {
		grades = " (" + strings.Join(parts, ", ") + ")"
	}
	return fmt.Sprintf("harvest: %d implicit labels%s of dataset %q appended to %s; %d unchanged since the last harvest skipped\n",
		len(r.Judgments)-skipped, grades, dataset, where.Redacted, skipped), nil
}
