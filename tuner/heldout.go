package tuner

import (
	"context"
	"fmt"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/metrics/stats"
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

// Confirm fills h's select-then-confirm fields: the one pre-planned
// comparison of the chosen trial's held-out results with the reference's
// (reference names it) by the decision rule with a family of one, the dev
// gain devDelta it was selected by and the share of it kept.
func Confirm(h *runs.HeldOut, chosen, reference []runs.QueryResult, refName string, devDelta float64, o StatsOptions) error {
	return ConfirmContext(context.Background(), h, chosen, reference, refName, devDelta, o)
}

// ConfirmContext is Confirm that stops, within milliseconds of ctx being
// cancelled, with an error wrapping ctx's.
func ConfirmContext(ctx context.Context, h *runs.HeldOut, chosen, reference []runs.QueryResult, refName string, devDelta float64, o StatsOptions) error {
	o = o.withDefaults()
	x, y, _, err := pairScores(chosen, reference, PrimaryMetric, h.Trial, refName)
	if err != nil {
		return err
	}
	p, err := stats.CompareContext(ctx, x, y, deriveSeed(o.Seed, "heldout", refName), o.Thresholds)
	if err != nil {
		return err
	}
	one := o
	one.Correction = stats.None
	cs, err := decide([]stats.Paired{p}, refName, PrimaryMetric, one)
	if err != nil {
		return err
	}
	c := cs[0]
	c.Rule += "; one pre-planned comparison on the held-out queries"
	h.Confirmation = c
	dd := runs.Round(devDelta)
	h.DevDelta = &dd
	if devDelta > 0 {
		k := runs.Round(c.Delta / devDelta)
		h.Kept = &k
	}
	d := make([]float64, len(x))
	for i := range x {
		d[i] = x[i] - y[i]
	}
	sd := stats.SD(d)
	mde := stats.MDE(sd, len(d), o.Thresholds.Alpha, stats.DefaultPower)
	h.Power = &runs.Power{Trial: h.Trial, Against: refName, N: len(d), SD: runs.Round(sd), Alpha: o.Thresholds.Alpha, Family: 1,
		Power: stats.DefaultPower, MDE: runs.Round(mde), Delta: c.Delta, Below: c.Delta < mde}
	return nil
}
