package treceval

import (
	"context"
	"fmt"
	"io"

	"github.com/fusiontune/fusiontune/internal/trec"
)

// EvaluatePaths is `tune eval`: it selects the measures (Select), reads
// the qrels file and scores the run file against it (EvaluateFile) with
// relevance level level and, with complete, every qrels query counted.
// Warnings (measures not implemented, run queries without judgments) go
// to warn. Every error but ctx's is the user's input.
func EvaluatePaths(ctx context.Context, qrelsPath, runPath string, measures []string, level int, complete bool, warn io.Writer) (*Result, error) {
	sel, err := Select(measures)
	if err != nil {
		return nil, fmt.Errorf("eval: %w", err)
	}
	for _, m := range sel.Missing {
		fmt.Fprintf(warn, "tune eval: warning: trec_eval measure %q is not implemented; skipped\n", m)
	}
	qrels, err := trec.ReadJudgmentsFile(qrelsPath)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	o := DefaultOptions()
	o.RelevanceLevel, o.Complete = level, complete
	res, err := EvaluateFile(ctx, qrels, runPath, sel, o)
	if err != nil {
		return nil, err
	}
	if n := len(res.Skipped); n > 0 {
		fmt.Fprintf(warn, "tune eval: warning: %d run queries have no judgments in %s and were skipped (first: %q)\n", n, qrelsPath, res.Skipped[0])
	}
	return res, nil
}
