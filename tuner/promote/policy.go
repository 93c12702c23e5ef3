package promote

import (
	"bytes"
	"context"
	"fmt"
	"reflect"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/fusiontune/fusiontune/tuner/analysis"

	"github.com/fusiontune/fusiontune/runs"
)

// DefaultGuardTolerance is how far a guarded category's primary score may
// drop before a promotion is refused.
const DefaultGuardTolerance = 0.0

// Policy is the promotion policy: a trial is promoted only when it beats
// the reference (the production config's trial, else the baseline)
// significantly by the one decision rule (stats.Decide: the paired
// randomization test corrected over the run's family, whose interval then
// excludes 0; after a dev-split sweep, by the one pre-planned comparison on
// the held-out queries), and no guarded
// category's primary score drops by more than Tolerance.
type Policy struct {
	Guarded   []string
	Tolerance float64
	Stats     analysis.StatsOptions
	// Install turns a trial's recorded backend config into the production
	// config its promotion writes (nil: as recorded; see Config.Install),
	// so that the trial whose config is production is found whatever the
	// kind rewrites (paths, class names, indentation).
	Install func(config []byte) ([]byte, error)
	// JudgeDependence, when set (promotion.require_robust_winner), says
	// how the run's winner depends on the judge ("" when it does not); a
	// trial that depends on it, or that is not the winner every judge's
	// labels agree on, is refused.
	JudgeDependence func(ctx context.Context, run *runs.Run) (winner, why string, err error)
}

// Decision is the policy's verdict on one trial.
type Decision struct {
	Allowed bool
	// Against names the reference trial; Reference says what it is
	// ("the production config" or "the baseline").
	Against    string
	Reference  string
	Comparison *runs.Comparison
	// Confirmed is true when Comparison is the held-out confirmation of a
	// dev-split sweep (select, then confirm) rather than the dev
	// leaderboard's comparison.
	Confirmed bool
	// Reasons say why the promotion is refused (empty when allowed).
	Reasons []string
}

// Summary is one line describing the comparison behind the decision.
func (d Decision) Summary() string {
	c := d.Comparison
	if c == nil {
		return "no comparison"
	}
	s := fmt.Sprintf("Δ %s [%s, %s] (%s interval) over %d queries, p = %.4g", runs.FormatDelta(c.Delta), runs.FormatBound(c.Low), runs.FormatBound(c.High),
		runs.FormatLevel(c.Level), c.N, c.P)
	if c.PAdjusted != nil && c.Family > 1 && c.Correction != "none" {
		s += fmt.Sprintf(" (%s-adjusted %.4g)", c.Correction, *c.PAdjusted)
	}
	if c.Rule != "" {
		s += "; sig: " + c.Rule
	}
	return s
}

// Check applies the policy to the leaderboard entry best of run.
// production holds the bytes of the current production config (nil when
// there is none): a trial of the run with exactly that config is the
// reference; otherwise the baseline is.
func Check(run *runs.Run, lb runs.Leaderboard, best runs.Entry, production []byte, p Policy) (Decision, error) {
	return CheckContext(context.Background(), run, lb, best, production, p)
}

// CheckContext is Check that stops, within milliseconds of ctx being
// cancelled (SIGINT, SIGTERM during tune apply), with an error wrapping
// ctx's: the randomization test it may run is as long as
// stats.permutations makes it.
func CheckContext(ctx context.Context, run *runs.Run, lb runs.Leaderboard, best runs.Entry, production []byte, p Policy) (Decision, error) {
	var d Decision
	trials, err := run.Trials()
	if err != nil {
		return d, err
	}
	d.Against, d.Reference = productionTrial(trials, production, p.Install)
	if d.Against == "" && lb.Baseline != "" {
		d.Against, d.Reference = lb.Baseline, "the baseline"
	}
	if d.Against == "" {
		d.Reasons = append(d.Reasons, "the run has no baseline and no trial with the production config to compare with")
		return d, nil
	}
	ref, err := lb.Find(d.Against)
	if err != nil {
		return d, err
	}
	if ref.Status != runs.StatusOK {
		d.Reasons = append(d.Reasons, fmt.Sprintf("%s trial %q did not succeed (%s)", d.Reference, ref.Name, ref.Status))
		return d, nil
	}
	if best.Name == ref.Name {
		d.Reasons = append(d.Reasons, fmt.Sprintf("the best trial %q is %s itself: nothing to gain", best.Name, d.Reference))
		return d, nil
	}
	c := best.Comparison
	// Select, then confirm: after a dev-split sweep the test is the one
	// pre-planned comparison on the held-out queries.
	where := ""
	if h := lb.HeldOut; h != nil && h.Confirmation != nil && h.Trial == best.Name && h.Confirmation.Against == ref.Name {
		c, where = h.Confirmation, " on the held-out queries"
		d.Confirmed = true
	} else if c == nil || c.Against != ref.Name || c.Metric != analysis.PrimaryMetric {
		cmp, err := analysis.CompareTrialsContext(ctx, run, lb.Trials, ref, analysis.PrimaryMetric, p.Stats)
		if err != nil {
			return d, err
		}
		c = cmp[best.Name]
	}
	d.Comparison = c
	switch {
	case c == nil:
		d.Reasons = append(d.Reasons, fmt.Sprintf("trial %q could not be compared with %q", best.Name, ref.Name))
	case c.PAdjusted == nil:
		d.Reasons = append(d.Reasons, fmt.Sprintf("%q cannot be shown better than %s %q: %s", best.Name, d.Reference, ref.Name, strings.Join(c.Warnings, "; ")))
	case !c.Significant || c.Delta <= 0:
		d.Reasons = append(d.Reasons, fmt.Sprintf("%q is not significantly better than %s %q%s: %s", best.Name, d.Reference, ref.Name, where, d.Summary()))
	}
	d.guard(best, ref, p)
	if p.JudgeDependence != nil {
		winner, why, err := p.JudgeDependence(ctx, run)
		if err != nil {
			return d, err
		}
		switch {
		case why != "":
			d.Reasons = append(d.Reasons, fmt.Sprintf("the winner depends on the judge (%s); promotion.require_robust_winner requires a winner every judge agrees on", why))
		case winner != best.Name:
			d.Reasons = append(d.Reasons, fmt.Sprintf("under the label store's labels %q leads, not %q (promotion.require_robust_winner)", winner, best.Name))
		}
	}
	d.Allowed = len(d.Reasons) == 0
	return d, nil
}

// productionTrial is the name of the first successful trial whose config,
// as install writes it, means the same as production (SameConfig), ""
// when none does, and "the production config" as the reference.
func productionTrial(trials []runs.TrialRecord, production []byte, install func([]byte) ([]byte, error)) (name, reference string) {
	if production == nil {
		return "", ""
	}
	for _, t := range trials {
		if t.Status != runs.StatusOK || t.BackendConfig == "" {
			continue
		}
		config := []byte(t.BackendConfig)
		if install != nil {
			c, err := install(config)
			if err != nil {
				continue
			}
			config = c
		}
		if SameConfig(config, production) {
			return t.Name, "the production config"
		}
	}
	return "", ""
}

// SameConfig reports whether two configs say the same: both parsed (YAML,
// of which JSON is a part) to the same keys and values, numbers compared
// by value (60 and 60.0 are equal), whatever the layout, key order or
// quoting. Text that does not parse is compared byte for byte, less the
// surrounding space.
func SameConfig(a, b []byte) bool {
	var va, vb any
	if yaml.Unmarshal(a, &va) != nil || yaml.Unmarshal(b, &vb) != nil {
		return bytes.Equal(bytes.TrimSpace(a), bytes.TrimSpace(b))
	}
	return reflect.DeepEqual(canonical(va), canonical(vb))
}

// canonical is v with every number a float64 and every map keyed by
// strings, so that equal documents are DeepEqual.
func canonical(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			out[k] = canonical(x)
		}
		return out
	case map[any]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			out[fmt.Sprint(k)] = canonical(x)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = canonical(x)
		}
		return out
	case int:
		return float64(v)
	case int64:
		return float64(v)
	case uint64:
		return float64(v)
	}
	return v
}

// guard adds a reason for every guarded category of p that best regresses
// on against ref by more than the tolerance, or that the run lacks.
func (d *Decision) guard(best, ref runs.Entry, p Policy) {
	for _, cat := range p.Guarded {
		b, okB := best.Categories[cat]
		r, okR := ref.Categories[cat]
		if !okB || !okR {
			d.Reasons = append(d.Reasons, fmt.Sprintf("guarded category %q is not in the run", cat))
			continue
		}
		if drop := r["primary"] - b["primary"]; drop > p.Tolerance+1e-12 {
			d.Reasons = append(d.Reasons, fmt.Sprintf("guarded category %q regresses by %.4f (%.4f -> %.4f), more than the tolerance %.4f",
				cat, drop, r["primary"], b["primary"], p.Tolerance))
		}
	}
}
