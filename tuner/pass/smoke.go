package pass

import (
	"context"
	"fmt"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/tuner/scoring"
)

// SmokeTolerance is how far a smoke-checked query's primary score may be
// from the score recorded for the promoted trial.
const SmokeTolerance = 1e-9

// SmokeCheck evaluates queries on s and compares each query's primary score
// with the one recorded for the promoted trial (recorded, by query id): a
// promoted config must reproduce what was measured. A failed query or a
// difference above SmokeTolerance fails the check, naming the query.
func SmokeCheck(ctx context.Context, s backend.Searcher, queries []scoring.Query, recorded map[string]float64, sc scoring.Scorer, o EvalOptions) error {
	b, err := Pass{Searcher: s, Queries: queries, Scorer: sc, Eval: o, Prefix: "smoke"}.Search(ctx)
	if err != nil {
		return fmt.Errorf("smoke evaluation: %w", err)
	}
	for i, r := range b.Results {
		if r.Error != "" {
			return fmt.Errorf("smoke evaluation: query %q failed: %s", queries[i].ID, r.Error)
		}
		want, ok := recorded[r.QueryID]
		if !ok {
			continue
		}
		if d := r.Primary - want; d > SmokeTolerance || d < -SmokeTolerance {
			return fmt.Errorf("smoke evaluation: query %q scores %.6f, the trial recorded %.6f", r.QueryID, r.Primary, want)
		}
	}
	return nil
}
