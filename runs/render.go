package runs

import (
	"encoding/csv"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/olekukonko/tablewriter"
)

// Formats accepted by Render.
var Formats = []string{"text", "json", "md", "csv"}

// tableMetrics is how many scorecard metrics the text and Markdown tables
// show; JSON and CSV carry all of them.
const tableMetrics = 4

// Render writes the leaderboard in format: text (a terminal table), json,
// md (Markdown) or csv.
func (lb Leaderboard) Render(w io.Writer, format string) error {
	switch format {
	case "text", "table", "":
		return lb.renderText(w)
	case "json":
		data, err := MarshalJSON(lb)
		if err != nil {
			return err
		}
		_, err = w.Write(data)
		return err
	case "md", "markdown":
		return lb.renderMarkdown(w)
	case "csv":
		return lb.renderCSV(w)
	}
	return fmt.Errorf("runs: unknown format %q (want one of %s)", format, strings.Join(Formats, ", "))
}

func (lb Leaderboard) shownMetrics() []string {
	if len(lb.Metrics) <= tableMetrics {
		return append(slices.Clip(lb.Metrics), lb.judgedOnlyColumns()...)
	}
	return append(slices.Clip(lb.Metrics[:tableMetrics]), lb.judgedOnlyColumns()...)
}

func (lb Leaderboard) header(metrics []string) []string {
	h := []string{"#", "trial", "primary", "Δ baseline", "sig"}
	if lb.Stats != nil {
		h[3] = "Δ baseline [decision CI]"
	}
	if lb.Ceiling != nil {
		h = slices.Insert(h, 3, "% ceil")
	}
	h = append(h, metrics...)
	return append(h, "routing", "status")
}

// deltaCells renders the delta against the baseline with its interval, and
// the significance mark: + (significantly better), - (significantly
// worse), n.s. (not significant), ? (not testable: too few pairs).
func deltaCells(e Entry) (string, string) {
	c := e.Comparison
	if c == nil {
		if e.Delta != nil {
			return FormatDelta(*e.Delta), "—"
		}
		return "—", "—"
	}
	return fmt.Sprintf("%s [%s, %s]", FormatDelta(c.Delta), FormatBound(c.Low), FormatBound(c.High)), significance(*c)
}

// FormatDelta renders a difference with its sign and four decimals, as
// every listing and report shows deltas; a value that rounds to zero is
// "+0.0000", never "-0.0000".
func FormatDelta(v float64) string {
	s := fmt.Sprintf("%+.4f", v)
	if s == "-0.0000" {
		return "+0.0000"
	}
	return s
}

// FormatBound renders an interval bound as FormatDelta does, except that
// a non-zero bound keeps its sign when it rounds to zero ("-0.0000" for
// -0.000001), so an interval that excludes 0 never reads as touching it.
func FormatBound(v float64) string {
	if v < 0 {
		return fmt.Sprintf("%+.4f", v)
	}
	return FormatDelta(v)
}

func (lb Leaderboard) row(e Entry, metrics []string) []string {
	r := []string{strconv.Itoa(e.Rank), e.Name, f4(e.Primary), "—", "—"}
	if same := lb.Same(e.Name); len(same) > 0 {
		r[1] += fmt.Sprintf(" (+%d same)", len(same))
	}
	r[3], r[4] = deltaCells(e)
	if e.Status != StatusOK && e.Status != StatusPruned {
		r[2] = "—"
	}
	if lb.Ceiling != nil {
		c := "—"
		if e.OfCeiling != nil {
			c = FormatShare(*e.OfCeiling)
		}
		r = slices.Insert(r, 3, c)
	}
	for _, m := range metrics {
		if v, ok := e.metric(m); ok {
			r = append(r, f4(v))
		} else {
			r = append(r, "—")
		}
	}
	routing := "—"
	if e.Routing != nil {
		routing = f4(*e.Routing)
	}
	status := e.Status
	if e.Mode != "" && e.Status == StatusOK {
		status += " (" + e.Mode + ")"
	}
	if e.Status == StatusPruned && e.Fraction > 0 {
		status += fmt.Sprintf(" at %.0f%%", 100*e.Fraction)
	}
	if e.Name == lb.Baseline {
		status += ", baseline"
	}
	return append(r, routing, status)
}

func f4(v float64) string { return strconv.FormatFloat(v, 'f', 4, 64) }

// FormatShare renders a share of the ceiling as a percentage with one
// decimal: "74.8%".
func FormatShare(v float64) string { return strconv.FormatFloat(100*v, 'f', 1, 64) + "%" }

// PrimaryLine explains the primary score in one line: its description and,
// when known, its ceiling on the golden set.
func (lb Leaderboard) PrimaryLine() string {
	if lb.Ceiling == nil {
		return lb.Primary
	}
	return fmt.Sprintf("%s (ceiling %s on this golden set: the score of its ideal ranking; %% ceil = primary / ceiling)",
		lb.Primary, f4(lb.Ceiling.Primary))
}

func (lb Leaderboard) renderText(w io.Writer) error {
	metrics := lb.shownMetrics()
	t := tablewriter.NewWriter(w)
	t.SetHeader(lb.header(metrics))
	t.SetAutoFormatHeaders(false)
	t.SetAutoWrapText(false)
	t.SetBorder(true)
	for _, e := range lb.Trials {
		if e.SameAs == "" {
			t.Append(lb.row(e, metrics))
		}
	}
	t.Render()
	fmt.Fprintf(w, "primary: %s\n", lb.PrimaryLine())
	for _, line := range lb.notes() {
		fmt.Fprintln(w, line)
	}
	for _, e := range lb.Trials {
		if e.Error != "" {
			fmt.Fprintf(w, "%s: %s\n", e.Name, e.Error)
		}
	}
	for _, warn := range lb.Warnings {
		fmt.Fprintf(w, "warning: %s\n", warn)
	}
	return nil
}

// notes explain the statistics columns and give the held-out estimate.
func (lb Leaderboard) notes() []string {
	var out []string
	if st := lb.Stats; st != nil && st.Against != "" {
		out = append(out, fmt.Sprintf("Δ: mean per-query difference in primary vs %s, with the interval of the decision; "+
			"sig: %s: + better, - worse, n.s. not significant, ? too few non-zero pairs to test; %s; seed %d",
			st.Against, lb.rule(), lb.levels(), st.Seed))
	}
	if lb.Power != nil {
		out = append(out, lb.Power.Line())
	}
	for _, e := range lb.Trials {
		if same := lb.Same(e.Name); len(same) > 0 {
			out = append(out, fmt.Sprintf("same results as %s (one row): %s", e.Name, strings.Join(same, ", ")))
		}
	}
	if lb.Rescored != nil {
		out = append(out, lb.Rescored.Lines()...)
	}
	if h := lb.HeldOut; h != nil {
		out = append(out, fmt.Sprintf("held-out estimate: %s scores %.4f on the %s split (%d queries) vs %.4f on dev (tuned on)",
			h.Trial, h.Primary, h.Split, h.Queries, h.DevPrimary))
		if h.Confirmation != nil {
			out = append(out, h.ConfirmLine())
		}
	}
	return out
}

// rule is the decision rule the comparisons state (one for the whole
// leaderboard: they share the family).
func (lb Leaderboard) rule() string {
	if lb.Stats != nil && lb.Stats.Rule != "" {
		return lb.Stats.Rule
	}
	for _, e := range lb.Trials {
		if e.Comparison != nil && e.Comparison.Rule != "" {
			return e.Comparison.Rule
		}
	}
	if st := lb.Stats; st != nil {
		return fmt.Sprintf("%s, %s over %d trials, α = %g", st.Test, st.Correction, lb.compared(), st.Alpha)
	}
	return ""
}

// levels describes the confidence levels of the intervals shown.
func (lb Leaderboard) levels() string {
	lo, hi := 1.0, 0.0
	for _, e := range lb.Trials {
		if c := e.Comparison; c != nil && c.PAdjusted != nil {
			lo, hi = min(lo, c.Level), max(hi, c.Level)
		}
	}
	switch {
	case lo > hi:
		return "no intervals"
	case lo == hi:
		return "interval level " + FormatLevel(lo)
	}
	return "interval levels " + FormatLevel(lo) + "–" + FormatLevel(hi) + " (each trial's adjusted level; sig ⇔ interval excludes 0)"
}

// compared counts the trials with a comparison (the correction's family).
func (lb Leaderboard) compared() int {
	n := 0
	for _, e := range lb.Trials {
		if e.Comparison != nil && e.Comparison.PAdjusted != nil {
			n++
		}
	}
	return n
}

// MarkdownTable writes header and rows as a Markdown table to b, "|" in
// a cell escaped. Every Markdown listing of tune uses it.
func MarkdownTable(b *strings.Builder, header []string, rows [][]string) {
	b.WriteString("| " + strings.Join(header, " | ") + " |\n")
	b.WriteString("|" + strings.Repeat(" --- |", len(header)) + "\n")
	for _, r := range rows {
		cells := make([]string, len(r))
		for i, c := range r {
			cells[i] = strings.ReplaceAll(c, "|", `\|`)
		}
		b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
	}
}

func (lb Leaderboard) renderMarkdown(w io.Writer) error {
	metrics := lb.shownMetrics()
	h := lb.header(metrics)
	var b strings.Builder
	fmt.Fprintf(&b, "Primary score: %s\n\n", lb.PrimaryLine())
	for _, line := range lb.notes() {
		fmt.Fprintf(&b, "%s\n\n", line)
	}
	var rows [][]string
	for _, e := range lb.Trials {
		if e.SameAs == "" {
			rows = append(rows, lb.row(e, metrics))
		}
	}
	MarkdownTable(&b, h, rows)
	for _, warn := range lb.Warnings {
		fmt.Fprintf(&b, "\n> %s\n", warn)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// renderCSV writes the leaderboard as CSV: a row per trial with its
// statistics, its share of the ceiling (when one is recorded), every
// metric and judged-only column, and every parameter any trial sets
// (sorted), "" for what a trial lacks.
func (lb Leaderboard) renderCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	paramKeys := map[string]bool{}
	for _, e := range lb.Trials {
		for k := range e.Params {
			paramKeys[k] = true
		}
	}
	keys := slices.Sorted(maps.Keys(paramKeys))
	head := []string{"rank", "trial", "status", "mode", "primary", "delta_vs_baseline", "routing_accuracy", "queries",
		"delta_ci_low", "delta_ci_high", "p_randomization", "p_adjusted", "significant", "ci_level", "family", "p_wilcoxon_secondary"}
	if lb.Ceiling != nil {
		head = append(head, "of_ceiling")
	}
	head = append(head, lb.Metrics...)
	head = append(head, lb.judgedOnlyColumns()...)
	head = append(head, keys...)
	if err := cw.Write(head); err != nil {
		return err
	}
	for _, e := range lb.Trials {
		row := csvStats(e)
		if lb.Ceiling != nil {
			c := ""
			if e.OfCeiling != nil {
				c = num(*e.OfCeiling)
			}
			row = append(row, c)
		}
		for _, m := range append(slices.Clip(lb.Metrics), lb.judgedOnlyColumns()...) {
			if v, ok := e.metric(m); ok {
				row = append(row, num(v))
			} else {
				row = append(row, "")
			}
		}
		for _, k := range keys {
			if v, ok := e.Params[k]; ok {
				row = append(row, fmt.Sprint(v))
			} else {
				row = append(row, "")
			}
		}
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// csvStats are the first 16 CSV columns of trial e: rank, name, status,
// mode, primary, delta, routing accuracy, queries, and its comparison
// with the baseline (interval, p-values, significance, level, family,
// Wilcoxon's p), "" for what it lacks.
func csvStats(e Entry) []string {
	row := []string{strconv.Itoa(e.Rank), e.Name, e.Status, e.Mode, num(e.Primary), "", "", strconv.Itoa(e.Queries), "", "", "", "", "", "", "", ""}
	if e.Delta != nil {
		row[5] = num(*e.Delta)
	}
	if c := e.Comparison; c != nil {
		row[8], row[9], row[10], row[12] = num(c.Low), num(c.High), num(c.P), strconv.FormatBool(c.Significant)
		row[13], row[14] = num(c.Level), strconv.Itoa(c.Family)
		if c.Secondary != nil && c.Secondary.PWilcoxon != nil {
			row[15] = num(*c.Secondary.PWilcoxon)
		}
		if c.PAdjusted != nil {
			row[11] = num(*c.PAdjusted)
		}
	}
	if e.Routing != nil {
		row[6] = num(*e.Routing)
	}
	return row
}

func num(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
