package tuner

import (
	"context"
	"fmt"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner/pass"
	"github.com/fusiontune/fusiontune/tuner/scoring"
)

// HeldOut evaluates params, the configuration chosen on the dev split, on
// the held-out queries: it applies it to b, restarts b, waits until it is
// ready and scores every query. devPrimary is the score the trial was
// chosen by. The result is not part of the run's trials.
func HeldOut(ctx context.Context, b backend.Backend, trial string, params map[string]any, devPrimary float64, queries []scoring.Query, sc scoring.Scorer, o pass.EvalOptions) (*runs.HeldOut, []runs.QueryResult, error) {
	ps := pass.Pass{Queries: queries, Scorer: sc, Eval: o, Prefix: "heldout/" + trial}
	batch, _, err := ps.Run(ctx, b, params, true)
	if err != nil {
		return nil, nil, fmt.Errorf("held-out estimate: %w", err)
	}
	s := scoring.Summarize(queries, batch.Results)
	h := &runs.HeldOut{Trial: trial, Split: "test", Queries: s.Scored, Primary: runs.Round(s.Primary),
		DevPrimary: runs.Round(devPrimary), Failed: batch.Failed}
	h.Scorecard = make(map[string]float64, len(s.Scorecard))
	for k, v := range s.Scorecard {
		h.Scorecard[k] = runs.Round(v)
	}
	return h, batch.Results, nil
}
