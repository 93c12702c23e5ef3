package analysis

import (
	"context"

	"github.com/fusiontune/fusiontune/metrics/stats"
	"github.com/fusiontune/fusiontune/runs"
)

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
	o = o.WithDefaults()
	x, y, _, err := PairScores(chosen, reference, PrimaryMetric, h.Trial, refName)
	if err != nil {
		return err
	}
	p, err := stats.CompareContext(ctx, x, y, DeriveSeed(o.Seed, "heldout", refName), o.Thresholds)
	if err != nil {
		return err
	}
	one := o
	one.Correction = stats.None
	cs, err := Decide([]stats.Paired{p}, refName, PrimaryMetric, one)
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
