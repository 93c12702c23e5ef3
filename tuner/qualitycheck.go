package tuner

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/fusiontune/fusiontune/internal/atomicfile"
	"github.com/fusiontune/fusiontune/internal/inputerr"
	"github.com/fusiontune/fusiontune/runs"
)

// Against sets the check's reference: ref is a run (id, prefix, path or
// latest), latest-on-branch (the newest run on base, the base branch the
// command resolved: the CI's target branch, else the check's own), or a
// baseline file; "" none. c.Store must be open. A reference
// that does not resolve is an inputerr.Error.
func (c *QualityConfig) Against(ref, base string) error {
	if ref == "" {
		return nil
	}
	r, err := ResolveReference(c.Store, ref, base)
	if err != nil {
		return inputerr.Wrap(err)
	}
	c.Reference = r
	return nil
}

// ExportBaseline copies the check's baseline (scorecard and per-query
// scores, runs.BaselineFile) from run to path, to commit beside the
// golden set.
func ExportBaseline(run *runs.Run, path string) error {
	data, err := os.ReadFile(filepath.Join(run.Dir, runs.BaselineFile))
	if err == nil {
		err = atomicfile.Write(path, data, 0o644)
	}
	if err != nil {
		return fmt.Errorf("--export-baseline: %w", err)
	}
	return nil
}

// GatesFailed is the error of a check whose gates did not all pass,
// naming the failed ones; nil when they passed.
func GatesFailed(q *runs.Quality) error {
	if q.GatesPass {
		return nil
	}
	var failed []string
	for _, g := range q.Gates {
		if !g.Pass {
			failed = append(failed, g.Gate)
		}
	}
	return fmt.Errorf("%d of %d gates failed: %s", len(failed), len(q.Gates), strings.Join(failed, ", "))
}
