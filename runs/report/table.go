package report

import (
	"fmt"
	"html/template"
	"strings"

	"github.com/fusiontune/fusiontune/internal/paramtext"
	"github.com/fusiontune/fusiontune/runs"
)

// shownMetrics is how many of the leaderboard's metrics the table shows,
// like the terminal table (the coverage metric has its own section).
const shownMetrics = 4

type leaderboardView struct {
	Params  []template.HTML // escaped names with break hints after dots
	Metrics []string
	Stats   bool
	Modes   bool // some trial was not evaluated live: show the mode column
	Routing bool // some trial has a routing accuracy
	Ceiling bool // the leaderboard records a ceiling: show "% ceil"
	Rows    []rowView
	// Correction names the multiple-comparison correction of the p-values;
	// Caveats are the comparisons' warnings, "trial: warning".
	Correction string
	Caveats    []string
	// BestMetrics are the best trial's comparisons on the other chosen
	// metrics, when the run made them.
	BestMetrics []metricRow
}

type metricRow struct {
	Metric, Delta, Interval, P, Mark string
}

type rowView struct {
	Rank    int
	Name    string
	Params  []string
	Primary string
	// OfCeiling is the primary score as a share of the ceiling, "74.8%"
	// or —.
	OfCeiling string
	Delta     string // "+0.0123" or "—"
	Interval  string // "[-0.0100, +0.0300]" when a comparison was recorded
	P         string // p-value after the run's correction, or —
	Mark      string // "+", "-" or ""
	Sig       bool
	Metrics   []string
	Routing   string
	Mode      string
	Status    string
	Partial   string // "27% of queries" for a pruned trial
	Error     string
	Baseline  bool
	Best      bool
	OK        bool
}

// newLeaderboardView is the leaderboard table: a row per trial with the
// varying parameters and up to shownMetrics metrics as columns, the
// columns only some runs have (routing, mode, share of the ceiling), the
// comparisons' correction and caveats, and the best trial's comparisons on
// the other metrics.
func newLeaderboardView(lb runs.Leaderboard, varying []string, stats bool) leaderboardView {
	v := leaderboardView{Stats: stats, Ceiling: lb.Ceiling != nil}
	for _, k := range varying {
		v.Params = append(v.Params, breakable(k))
	}
	for _, m := range lb.Metrics {
		if len(v.Metrics) < shownMetrics && m != CoverageMetric {
			v.Metrics = append(v.Metrics, m)
		}
	}
	for i, e := range lb.Trials {
		r := newRowView(e, i == 0, lb.Baseline, varying, v.Metrics)
		if c := e.Comparison; c != nil {
			if v.Correction == "" {
				v.Correction = c.Correction
			}
			for _, w := range c.Warnings {
				v.Caveats = append(v.Caveats, e.Name+": "+w)
			}
		}
		v.Routing = v.Routing || e.Routing != nil
		v.Modes = v.Modes || e.Mode != "" && e.Mode != "live"
		v.Rows = append(v.Rows, r)
		if r.Best {
			v.BestMetrics = append(v.BestMetrics, metricRows(e.MetricComparisons)...)
		}
	}
	return v
}

// newRowView is trial e's row ("—" for what it lacks): first is whether it
// heads the leaderboard (the best trial, when it succeeded), baseline the
// baseline's name, varying and metrics the parameter and metric columns.
// A pruned trial shows its partial score and the share of queries it ran.
func newRowView(e runs.Entry, first bool, baseline string, varying, metrics []string) rowView {
	ok := e.Status == runs.StatusOK
	r := rowView{
		Rank: e.Rank, Name: e.Name, Primary: "—", Delta: "—", Routing: "—", OfCeiling: "—",
		Mode: e.Mode, Status: e.Status, Error: e.Error,
		Baseline: e.Name == baseline, Best: first && ok, OK: ok,
	}
	if ok || e.Status == runs.StatusPruned {
		r.Primary = f4(e.Primary)
	}
	if e.OfCeiling != nil {
		r.OfCeiling = runs.FormatShare(*e.OfCeiling)
	}
	if e.Status == runs.StatusPruned && e.Fraction > 0 && e.Fraction < 1 {
		r.Partial = pct(e.Fraction) + " of queries"
	}
	for _, k := range varying {
		r.Params = append(r.Params, paramCell(e, k))
	}
	if e.Delta != nil {
		r.Delta = signed(*e.Delta)
	}
	if c := e.Comparison; c != nil {
		r.Delta = signed(c.Delta)
		r.Interval = "[" + runs.FormatBound(c.Low) + ", " + runs.FormatBound(c.High) + "]"
		r.P = "—"
		if c.PAdjusted != nil {
			r.P = fmt.Sprintf("%.3g", *c.PAdjusted)
		}
		r.Mark, r.Sig = c.Mark, c.Significant
	}
	for _, m := range metrics {
		if x, ok := e.Scorecard[m]; ok {
			r.Metrics = append(r.Metrics, f4(x))
		} else {
			r.Metrics = append(r.Metrics, "—")
		}
	}
	if e.Routing != nil {
		r.Routing = f4(*e.Routing)
	}
	return r
}

// metricRows are a trial's comparisons on other metrics, as rows.
func metricRows(cs []runs.Comparison) []metricRow {
	var rows []metricRow
	for _, c := range cs {
		m := metricRow{Metric: c.Metric, Delta: signed(c.Delta), Interval: "[" + runs.FormatBound(c.Low) + ", " + runs.FormatBound(c.High) + "]", P: "—", Mark: c.Mark}
		if c.PAdjusted != nil {
			m.P = fmt.Sprintf("%.3g", *c.PAdjusted)
		}
		rows = append(rows, m)
	}
	return rows
}

// signed formats a difference as every listing does (runs.FormatDelta).
func signed(v float64) string { return runs.FormatDelta(v) }

// breakable escapes a dotted name and lets it wrap after each dot.
func breakable(name string) template.HTML {
	parts := strings.Split(name, ".")
	for i, p := range parts {
		parts[i] = template.HTMLEscapeString(p)
	}
	return template.HTML(strings.Join(parts, ".<wbr>"))
}

// paramCell is trial e's value of parameter k as the table shows it,
// rounded for reading: its own, else the backend's default it runs on
// (recorded in the leaderboard) marked "(default)", else "—".
func paramCell(e runs.Entry, k string) string {
	if v, ok := e.Params[k]; ok {
		return paramtext.Rounded(v)
	}
	if v, ok := e.Value(k); ok {
		return paramtext.Rounded(v) + " (default)"
	}
	return "—"
}
