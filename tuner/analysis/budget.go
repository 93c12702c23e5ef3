package analysis

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/fusiontune/fusiontune/metrics/stats"
	"github.com/fusiontune/fusiontune/runs"
)

// PlanEffects are the effects `tune plan` always budgets for, besides the
// one asked.
var PlanEffects = []float64{0.01, 0.02, 0.03, 0.05}

// Budget is how many judged queries it takes to detect given effects with
// 80% power, from a per-query standard deviation of paired differences:
// measured in a run, or stats.PriorSD.
type Budget struct {
	// Source says where SD comes from.
	Source string
	SD     float64
	Alpha  float64
	// Family is the number of trials a sweep corrects over (from the run;
	// 0 without one), Correction its method.
	Family     int
	Correction string
	Rows       []BudgetRow
}

// BudgetRow is one effect's budget: queries for one pre-planned comparison
// at Alpha (the held-out half of a select-then-confirm split), and for a
// comparison corrected over Family trials at Alpha/Family (0 without a
// family).
type BudgetRow struct {
	Effect    float64
	One       int
	Corrected int
	Asked     bool
}

// PlanBudget budgets for effect (and PlanEffects). With power set (a run's
// record) it uses the run's sd and family; otherwise stats.PriorSD.
func PlanBudget(effect float64, power *runs.Power, runID string, o StatsOptions) Budget {
	o = o.WithDefaults()
	b := Budget{SD: stats.PriorSD, Alpha: o.Thresholds.Alpha, Correction: o.Correction,
		Source: fmt.Sprintf("prior: sd %.2f of per-query ΔnDCG@10 between fusion configs (BEIR SciFact: ±0.015 at 300 queries, ±0.047 at 25)", stats.PriorSD)}
	if power != nil {
		b.SD, b.Family = power.SD, power.Family
		b.Source = fmt.Sprintf("run %s: sd %.4f of the %d paired differences %s vs %s", runID, power.SD, power.N, power.Trial, power.Against)
	}
	effects := append([]float64{}, PlanEffects...)
	if !slices.Contains(effects, effect) {
		effects = append(effects, effect)
		slices.Sort(effects)
	}
	for _, e := range effects {
		r := BudgetRow{Effect: e, One: stats.QueriesNeeded(e, b.SD, b.Alpha, stats.DefaultPower), Asked: e == effect}
		if b.Family > 1 && b.Correction != stats.None {
			r.Corrected = stats.QueriesNeeded(e, b.SD, b.Alpha/float64(b.Family), stats.DefaultPower)
		}
		b.Rows = append(b.Rows, r)
	}
	return b
}

// Write prints the budget as a small table.
func (b Budget) Write(w io.Writer) error {
	fmt.Fprintf(w, "queries needed to detect a mean gain with %.0f%% power (two-sided, α = %g), from %s\n", 100*stats.DefaultPower, b.Alpha, b.Source)
	head := fmt.Sprintf("  %-8s  %-28s", "effect", "one comparison (α = "+fmt.Sprint(b.Alpha)+")")
	if b.Family > 1 && b.Correction != stats.None {
		head += fmt.Sprintf("  %s over %d trials (α = %.4g)", b.Correction, b.Family, b.Alpha/float64(b.Family))
	}
	fmt.Fprintln(w, strings.TrimRight(head, " "))
	for _, r := range b.Rows {
		line := fmt.Sprintf("  %-8s  %-28d", runs.FormatDelta(r.Effect), r.One)
		if r.Corrected > 0 {
			line += fmt.Sprintf("  %-6d", r.Corrected)
		}
		if r.Asked {
			line += "  <- asked"
		}
		fmt.Fprintln(w, strings.TrimRight(line, " "))
	}
	_, err := fmt.Fprintln(w, "select, then confirm (--split dev) tests one comparison on the held-out queries: the golden set needs the first column divided by the held-out share (1 - dataset.dev_fraction)")
	return err
}
