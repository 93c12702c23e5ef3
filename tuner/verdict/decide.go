package verdict

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/metrics/stats"
	"github.com/fusiontune/fusiontune/runs"
	"gonum.org/v1/gonum/stat/distuv"
)

// OffShare is the share of the total fusion weight under which a
// retriever is effectively off: below a twentieth of the weight it can
// only reorder documents the other retriever ranks almost alike.
const OffShare = 0.05

// Decide is the run's verdict from its leaderboard (statistics, held-out
// confirmation and power included): what to ship and how sure the run is.
// It follows the promotion policy's rule — the best trial is shipped only
// when it beats the baseline significantly by the decision rule (after a
// dev split, by the held-out confirmation) — and says when the best
// configuration is a single retriever, alone or with the other's weight so
// small that it is effectively off. The verdict names the primary score
// short (NDCG@10, or "primary" for a composite).
func Decide(lb runs.Leaderboard) runs.Verdict {
	best, ok := lb.Best()
	if !ok {
		return runs.Verdict{Kind: runs.VerdictNone, Line: "no verdict: no trial succeeded"}
	}
	measure := PrimaryName(lb.Primary)
	single, share := singleRetriever(best.Params)
	if lb.Baseline == "" {
		v := runs.Verdict{Kind: runs.VerdictNone, Best: best.Name,
			Line: fmt.Sprintf("no verdict: the run has no baseline to compare with; the best trial is %q (%s %.4f): add the configuration you run today as the baseline to decide",
				best.Name, measure, best.Primary)}
		return v
	}
	base, err := lb.Find(lb.Baseline)
	if err != nil || base.Status != runs.StatusOK {
		return runs.Verdict{Kind: runs.VerdictNone, Against: lb.Baseline, Best: best.Name,
			Line: fmt.Sprintf("no verdict: the baseline %q did not succeed", lb.Baseline)}
	}
	if best.Name == base.Name || lb.Same(best.Name) != nil && slices.Contains(lb.Same(best.Name), base.Name) {
		return runs.Verdict{Kind: runs.VerdictKeep, Trial: base.Name, Against: base.Name,
			Line: fmt.Sprintf("keep the baseline %q: no trial scores higher on %s%s", base.Name, measure, runnerUp(lb, base.Name))}
	}
	c, confirmed := decision(lb, best, base)
	if c == nil || c.PAdjusted == nil {
		why := "it could not be compared"
		if c != nil && len(c.Warnings) > 0 {
			why = strings.Join(c.Warnings, "; ")
		}
		return runs.Verdict{Kind: runs.VerdictKeep, Trial: base.Name, Against: base.Name, Best: best.Name, Confirmed: confirmed,
			Line: fmt.Sprintf("keep the baseline %q: the best trial %q cannot be shown better: %s", base.Name, best.Name, why)}
	}
	gain := fmt.Sprintf("%s %s [%s, %s]", measure, runs.FormatDelta(c.Delta), runs.FormatBound(c.Low), runs.FormatBound(c.High))
	how := howSure(c, confirmed, lb.HeldOut)
	if !c.Significant || c.Delta <= 0 {
		v := runs.Verdict{Kind: runs.VerdictKeep, Trial: base.Name, Against: base.Name, Best: best.Name, Confirmed: confirmed}
		where := ""
		if confirmed {
			where = " on the held-out queries"
		}
		v.Line = fmt.Sprintf("keep the baseline %q: the best trial %q is %s%s, not significant (%s)", base.Name, best.Name, gain, where, how)
		if c.Delta > 0 {
			if n := queriesNeeded(lb, c); n > 0 {
				v.QueriesNeeded = n
				v.Line += fmt.Sprintf("; a true gain of %s would take about %d judged queries to detect (tune plan)", runs.FormatDelta(c.Delta), n)
			}
		}
		return v
	}
	v := runs.Verdict{Kind: runs.VerdictShip, Trial: best.Name, Against: base.Name, Confirmed: confirmed}
	v.Line = fmt.Sprintf("ship %q: %s over the baseline %q, significant (%s)", best.Name, gain, base.Name, how)
	if single != "" {
		v.Kind, v.Retriever = runs.VerdictSingle, single
		if share == 1 {
			v.Line = fmt.Sprintf("%s alone is best: ship %q, %s over the baseline %q, significant (%s); no hybrid beats it",
				single, best.Name, gain, base.Name, how)
		} else {
			v.Line = fmt.Sprintf("%s alone is effectively best: ship %q, %s over the baseline %q, significant (%s); it leaves the other retrievers %.1f%% of the fusion weight, so they are effectively off%s",
				single, best.Name, gain, base.Name, how, 100*(1-share), aloneRef(lb, single))
		}
	}
	return v
}

// PrimaryName is the short name of a leaderboard's primary score: the
// metric of a one-term primary (NDCG@10), else "primary".
func PrimaryName(desc string) string {
	if m, ok := strings.CutPrefix(desc, "default for binary judgments: "); ok {
		return m
	}
	if strings.HasPrefix(desc, "default composite") || strings.ContainsAny(desc, "+*( ") {
		return "primary"
	}
	return desc
}

// decision is the comparison the verdict follows: the held-out
// confirmation of the best trial against the baseline after a dev split,
// else the best trial's comparison with the baseline.
func decision(lb runs.Leaderboard, best, base runs.Entry) (*runs.Comparison, bool) {
	if h := lb.HeldOut; h != nil && h.Confirmation != nil && h.Trial == best.Name && h.Confirmation.Against == base.Name {
		return h.Confirmation, true
	}
	if c := best.Comparison; c != nil && c.Against == base.Name {
		return c, false
	}
	return nil, false
}

// howSure states the rule the comparison was decided by, and after a dev
// split how much of the dev gain the held-out queries kept.
func howSure(c *runs.Comparison, confirmed bool, h *runs.HeldOut) string {
	s := fmt.Sprintf("%s interval, p = %.3g", runs.FormatLevel(c.Level), c.P)
	switch {
	case confirmed:
		s += ", one pre-planned comparison on the held-out queries"
		if h.Kept != nil {
			s += fmt.Sprintf(", keeping %s of the dev gain", runs.FormatShare(*h.Kept))
		}
	case c.Family > 1 && c.Correction != "" && c.Correction != stats.None:
		s += fmt.Sprintf(" %s-adjusted over %d trials", c.Correction, c.Family)
	}
	return s
}

// queriesNeeded is how many judged queries would detect c's gain with 80%
// power at the level the run tests at (its correction over the family),
// from the run's per-query standard deviation (0 without one).
func queriesNeeded(lb runs.Leaderboard, c *runs.Comparison) int {
	p := lb.Power
	if p == nil || p.SD <= 0 || c.Delta <= 0 {
		return 0
	}
	alpha := p.Alpha
	if p.Family > 1 && c.Correction != "" && c.Correction != stats.None {
		alpha /= float64(p.Family)
	}
	return stats.QueriesNeeded(c.Delta, p.SD, alpha, stats.DefaultPower)
}

// runnerUp says how far the best trial other than name is behind it.
func runnerUp(lb runs.Leaderboard, name string) string {
	for _, e := range lb.Trials {
		if e.Status == runs.StatusOK && e.Name != name && e.SameAs == "" {
			base, _ := lb.Find(name)
			return fmt.Sprintf(" (the next best, %q, is %s)", e.Name, runs.FormatDelta(e.Primary-base.Primary))
		}
	}
	return ""
}

// aloneRef points at the run's trial of retriever alone, when it has one.
func aloneRef(lb runs.Leaderboard, retriever string) string {
	for _, e := range lb.Trials {
		if r, share := singleRetriever(e.Params); e.Status == runs.StatusOK && r == retriever && share == 1 {
			return fmt.Sprintf("; %q, %s alone, scores %.4f", e.Name, retriever, e.Primary)
		}
	}
	return ""
}

// singleRetriever names the one retriever params effectively run, with its
// share of the fusion weight (1 for a retriever alone), or "" for a
// hybrid: one retriever listed in retrievers, a Weaviate alpha within
// OffShare of 0 (BM25) or 1 (the vector leg), or one retriever holding all
// but less than OffShare of the per-retriever weights.
func singleRetriever(params map[string]any) (string, float64) {
	if rs := stringsOf(params[backend.ParamRetrievers]); len(rs) == 1 {
		return rs[0], 1
	}
	if a, ok := params[backend.ParamAlpha].(float64); ok {
		switch {
		case a <= OffShare:
			return "bm25", 1 - a
		case a >= 1-OffShare:
			return "dense", a
		}
		return "", 0
	}
	weights := map[string]float64{}
	total := 0.0
	for k, v := range params {
		r, ok := strings.CutPrefix(k, backend.WeightPrefix)
		w, isNum := v.(float64)
		if !ok || !isNum || w < 0 {
			continue
		}
		weights[r] = w
		total += w
	}
	if len(weights) < 2 || total <= 0 {
		return "", 0
	}
	for r, w := range weights {
		if share := w / total; share >= 1-OffShare {
			return r, share
		}
	}
	return "", 0
}

// stringsOf reads a list of strings as decoded from JSON or given in Go.
func stringsOf(v any) []string {
	switch x := v.(type) {
	case []string:
		return x
	case []any:
		out := make([]string, 0, len(x))
		for _, e := range x {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// ForComparison is the verdict of `tune compare`: run B when it beats A
// significantly on the primary score by the decision rule, A when A beats
// B, else keep A — with the gain and how many judged queries would settle
// it.
func ForComparison(c runs.TrialComparison) runs.Verdict {
	a := fmt.Sprintf("%s:%s", c.A.Run, c.A.Trial)
	b := fmt.Sprintf("%s:%s", c.B.Run, c.B.Trial)
	if len(c.Paired) == 0 || c.Paired[0].PAdjusted == nil {
		why := "the two sides share no scored query"
		if len(c.Paired) > 0 && len(c.Paired[0].Warnings) > 0 {
			why = strings.Join(c.Paired[0].Warnings, "; ")
		}
		return runs.Verdict{Kind: runs.VerdictKeep, Trial: a, Against: a, Best: b, Line: fmt.Sprintf("keep A (%s): B cannot be shown better: %s", a, why)}
	}
	p := c.Paired[0]
	gain := fmt.Sprintf("%s [%s, %s]", runs.FormatDelta(p.Delta), runs.FormatBound(p.Low), runs.FormatBound(p.High))
	how := fmt.Sprintf("%s interval, p = %.3g, %d queries", runs.FormatLevel(p.Level), p.P, p.N)
	switch {
	case p.Significant && p.Delta > 0:
		return runs.Verdict{Kind: runs.VerdictShip, Trial: b, Against: a, Line: fmt.Sprintf("ship B (%s): B - A = %s on the primary score, significant (%s)", b, gain, how)}
	case p.Significant && p.Delta < 0:
		return runs.Verdict{Kind: runs.VerdictKeep, Trial: a, Against: a, Best: a, Line: fmt.Sprintf("keep A (%s): B - A = %s on the primary score, B is significantly worse (%s)", a, gain, how)}
	}
	v := runs.Verdict{Kind: runs.VerdictKeep, Trial: a, Against: a, Best: b,
		Line: fmt.Sprintf("keep A (%s): B - A = %s on the primary score, not significant (%s)", a, gain, how)}
	if p.Delta > 0 && p.N > 1 {
		// The per-query sd from the interval is not at hand: the
		// randomization interval's half width at the level tested gives
		// it as a normal test would (half width = z * sd / sqrt(n)).
		if sd := sdFromInterval(p); sd > 0 {
			if n := stats.QueriesNeeded(p.Delta, sd, 1-p.Level, stats.DefaultPower); n > 0 {
				v.QueriesNeeded = n
				v.Line += fmt.Sprintf("; a true gain of %s would take about %d judged queries to detect (tune plan)", runs.FormatDelta(p.Delta), n)
			}
		}
	}
	return v
}

// sdFromInterval recovers the per-query standard deviation of paired
// differences from a comparison's interval as a normal test would have
// it: half width = z(1 - α/2) · sd / √n, α = 1 - Level (0 when it cannot).
func sdFromInterval(p runs.Comparison) float64 {
	a := 1 - p.Level
	if a <= 0 || a >= 1 || p.N < 2 || p.High <= p.Low {
		return 0
	}
	return (p.High - p.Low) / 2 * math.Sqrt(float64(p.N)) / distuv.UnitNormal.Quantile(1-a/2)
}
