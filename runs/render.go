package runs

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/fusiontune/fusiontune/internal/table"
)

// Formats accepted by Render.
var Formats = table.All.Names()

// tableMetrics is how many scorecard metrics the text and Markdown tables
// show; JSON and CSV carry all of them.
const tableMetrics = 4

// DefaultWidth is the widest line of a text leaderboard when its Width is
// 0: the table leaves out columns and cuts trial labels to fit, the notes
// wrap.
const DefaultWidth = 120

// The text table's columns in the order they are left out to fit its
// width (the highest first; the rightmost of equal ones first): routing,
// the share of the ceiling, the metrics from the right, then the
// intervals of the decision. The trial, its primary score, Δ, sig and
// status stay; then the trial's label is cut.
const (
	dropInterval = 1
	dropMetric   = 2
	dropCeiling  = 3
	dropRouting  = 4
)

// The range of a text leaderboard's Width (tune leaderboard --columns).
const (
	MinWidth = 40
	MaxWidth = 10000
)

// minLabel is the fewest characters a cut trial label keeps.
const minLabel = 16

// Render writes the leaderboard in format: text (a terminal table), json,
// md (Markdown) or csv.
func (lb Leaderboard) Render(w io.Writer, format string) error {
	return render(w, format, table.All, table.Output{Text: lb.renderText, Markdown: lb.renderMarkdown,
		CSV: lb.renderCSV, JSON: jsonOf(lb)})
}

// render writes o to w in format, one of offered; another is an error
// that lists them. It is every renderer's format switch.
func render(w io.Writer, format string, offered table.Formats, o table.Output) error {
	f, err := offered.Parse(format)
	if err != nil {
		return fmt.Errorf("runs: %w", err)
	}
	return o.Write(w, f)
}

// document is the output of a result drawn as a text or Markdown
// document (draw(md)), with v's JSON.
func document(draw func(md bool) string, v any) table.Output {
	write := func(md bool) func(io.Writer) error {
		return func(w io.Writer) error {
			_, err := io.WriteString(w, draw(md))
			return err
		}
	}
	return table.Output{Text: write(false), Markdown: write(true), JSON: jsonOf(v)}
}

// jsonOf writes v in JSON as runs writes its files (MarshalJSON).
func jsonOf(v any) func(io.Writer) error {
	return func(w io.Writer) error {
		data, err := MarshalJSON(v)
		if err != nil {
			return err
		}
		_, err = w.Write(data)
		return err
	}
}

func (lb Leaderboard) shownMetrics() []string {
	if len(lb.Metrics) <= tableMetrics {
		return append(slices.Clip(lb.Metrics), lb.judgedOnlyColumns()...)
	}
	return append(slices.Clip(lb.Metrics[:tableMetrics]), lb.judgedOnlyColumns()...)
}

// decisionCI heads the column of each comparison's interval, which the
// text table leaves out to fit its width after the metrics.
const decisionCI = "decision CI"

func (lb Leaderboard) header(metrics []string) []string {
	h := []string{"#", "trial", "primary", "Δ baseline", "sig"}
	if lb.Stats != nil {
		h = slices.Insert(h, 4, decisionCI)
	}
	if lb.Ceiling != nil {
		h = slices.Insert(h, 3, "% ceil")
	}
	h = append(h, metrics...)
	return append(h, "routing", "status")
}

// deltaCells renders the delta against the baseline, its interval, and
// the significance mark: + (significantly better), - (significantly
// worse), n.s. (not significant), ? (not testable: too few pairs).
func deltaCells(e Entry) (delta, interval, sig string) {
	c := e.Comparison
	if c == nil {
		if e.Delta != nil {
			return FormatDelta(*e.Delta), "—", "—"
		}
		return "—", "—", "—"
	}
	if c.PAdjusted == nil {
		// Too few differing queries to test: no decision, so no interval
		// of one.
		return FormatDelta(c.Delta), "—", significance(*c)
	}
	return FormatDelta(c.Delta), fmt.Sprintf("[%s, %s]", FormatBound(c.Low), FormatBound(c.High)), significance(*c)
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

func (lb Leaderboard) row(e Entry, labels map[string]string, metrics []string) []string {
	r := []string{strconv.Itoa(e.Rank), labels[e.Name], f4(e.Primary)}
	if same := lb.Same(e.Name); len(same) > 0 {
		r[1] += fmt.Sprintf(" (+%d same)", len(same))
	}
	if e.Status != StatusOK && e.Status != StatusPruned {
		r[2] = "—"
	}
	if lb.Ceiling != nil {
		c := "—"
		if e.OfCeiling != nil {
			c = FormatShare(*e.OfCeiling)
		}
		r = append(r, c)
	}
	delta, interval, sig := deltaCells(e)
	r = append(r, delta)
	if lb.Stats != nil {
		r = append(r, interval)
	}
	r = append(r, sig)
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

// shownTable is the leaderboard as the text and Markdown tables show it:
// a row per trial but those with the same results as a better one, each
// under its label (Labels), a value it lacks missing ("—"), columns
// without a value hidden, the first Top rows and the baseline's, and in
// text at most Width characters wide.
func (lb Leaderboard) shownTable() *table.Table {
	metrics := lb.shownMetrics()
	t := &table.Table{Columns: table.Headers(lb.header(metrics)...), Missing: "—", HideEmpty: true, Top: lb.Top,
		MaxWidth: lb.Width, CutNote: cutNote}
	if t.MaxWidth == 0 {
		t.MaxWidth = DefaultWidth
	}
	for i := range t.Columns {
		c := &t.Columns[i]
		switch h := c.Header; {
		case h == "Δ baseline":
			c.Align = table.Left // signed deltas line up; tablewriter would right-align only the negative ones
		case h == "trial":
			c.Shrink, c.MinWidth = true, minLabel
		case h == "routing":
			c.Drop = dropRouting
		case h == "% ceil":
			c.Drop = dropCeiling
		case h == decisionCI:
			c.Drop = dropInterval
		case slices.Contains(metrics, h):
			c.Drop = dropMetric
		}
	}
	labels := lb.Labels()
	for _, e := range lb.Trials {
		if e.SameAs != "" {
			continue
		}
		if e.Name == lb.Baseline {
			t.Keep = append(t.Keep, len(t.Rows))
		}
		row := lb.row(e, labels, metrics)
		cells := make([]any, len(row))
		for i, c := range row {
			if c != "—" {
				cells[i] = c
			}
		}
		t.Append(cells...)
	}
	return t
}

// cutNote says what the text or Markdown table left out and how to see it.
func cutNote(rows int, columns []string, width int) string {
	var parts []string
	if rows > 0 {
		parts = append(parts, fmt.Sprintf("%d more trials: --top 0 shows all", rows))
	}
	if len(columns) > 0 {
		parts = append(parts, fmt.Sprintf("left out to fit %d characters: %s; tune leaderboard --wide or --columns N shows them", width, strings.Join(columns, ", ")))
	}
	return "(" + strings.Join(parts, "; ") + ")"
}

// renderText writes the terminal table, then the primary score, the
// notes, the trials' errors and the warnings.
func (lb Leaderboard) renderText(w io.Writer) error {
	t := lb.shownTable()
	t.Notes = append([]string{"primary: " + lb.PrimaryLine()}, lb.notes()...)
	for _, e := range lb.Trials {
		if e.Error != "" {
			t.Notes = append(t.Notes, e.Name+": "+e.Error)
		}
	}
	for _, warn := range lb.shownWarnings() {
		t.Notes = append(t.Notes, "warning: "+warn)
	}
	if v := lb.verdictLine(); v != "" {
		t.Notes = append(t.Notes, v) // last: the decision
	}
	t.Notes = lb.labelled(t.Notes)
	return t.Render(w, table.Text)
}

// labelled is lines with every generated trial name written as its label
// (Labels), as the table shows the trial (a sampled trial keeps its short
// name): the longest names first, so that no name is replaced inside a
// longer one.
func (lb Leaderboard) labelled(lines []string) []string {
	labels := lb.Labels()
	var pairs []string
	for _, name := range slices.SortedFunc(maps.Keys(labels), func(a, b string) int { return len(b) - len(a) }) {
		if l := labels[name]; !strings.HasPrefix(l, name) { // a sampled trial's name is short already
			pairs = append(pairs, name, l)
		}
	}
	if len(pairs) == 0 {
		return lines
	}
	r := strings.NewReplacer(pairs...)
	out := make([]string, len(lines))
	for i, line := range lines {
		out[i] = r.Replace(line)
	}
	return out
}

// notes explain the statistics columns and give the held-out estimate.
func (lb Leaderboard) notes() []string {
	var out []string
	if st := lb.Stats; st != nil && st.Against != "" {
		out = append(out, fmt.Sprintf("Δ: mean per-query difference in primary vs %s, with the interval of the decision; "+
			"sig: %s: + better, - worse, n.s. not significant, ? too few non-zero pairs to test; %s; seed %d",
			st.Against, lb.rule(), lb.levels(), st.Seed))
	}
	if lb.Power != nil && (lb.Verdict == nil || lb.Verdict.Kind == VerdictKeep) {
		// The power line tells why a gain went undetected; beside a
		// verdict that ships, it would only seem to contradict it.
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

// verdictLine is the leaderboard's verdict as its text prints it last
// ("" without one).
func (lb Leaderboard) verdictLine() string {
	if lb.Verdict == nil {
		return ""
	}
	return "verdict: " + lb.Verdict.Line
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

// renderMarkdown writes the primary score and the notes as paragraphs,
// the table, then the warnings as quotes.
func (lb Leaderboard) renderMarkdown(w io.Writer) error {
	t := lb.shownTable()
	t.Title = strings.Join(lb.labelled(append([]string{"Primary score: " + lb.PrimaryLine()}, lb.notes()...)), "\n\n")
	for _, warn := range lb.shownWarnings() {
		t.Notes = append(t.Notes, "> "+warn)
	}
	if lb.Verdict != nil {
		t.Notes = append(t.Notes, "**Verdict:** "+lb.Verdict.Line)
	}
	t.Notes = lb.labelled(t.Notes)
	return t.Render(w, table.Markdown)
}

// renderCSV writes the leaderboard as CSV: a row per trial with its
// statistics, its share of the ceiling (when one is recorded), every
// metric and judged-only column, and every parameter any trial sets
// (sorted), "" for what a trial lacks.
func (lb Leaderboard) renderCSV(w io.Writer) error {
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
	t := &table.Table{Columns: table.Headers(head...)}
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
		t.AppendStrings(row...)
	}
	return t.Render(w, table.CSV)
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
