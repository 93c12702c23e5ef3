package runs

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/fusiontune/fusiontune/internal/table"
)

// compareFormats are the formats TrialComparison.Render accepts.
var compareFormats = table.Formats{table.Text, table.JSON, table.Markdown}

// CompareFormats are the names of the formats TrialComparison.Render
// accepts.
var CompareFormats = compareFormats.Names()

// Render writes the comparison as text, json or md (Markdown).
func (c TrialComparison) Render(w io.Writer, format string) error {
	return render(w, format, compareFormats, document(c.render, c))
}

// render draws text (aligned columns) or Markdown (pipe tables) from the
// same rows.
func (c TrialComparison) render(md bool) string {
	w := &textDoc{md: md}
	title := fmt.Sprintf("compare %s:%s (A, %.4f) -> %s:%s (B, %.4f)", c.A.Run, c.A.Trial, c.A.Primary, c.B.Run, c.B.Trial, c.B.Primary)
	if md {
		fmt.Fprintf(&w.b, "# %s\n", title)
	} else {
		w.b.WriteString(title + "\n")
	}

	w.heading("Paired comparison (B - A)")
	w.table([]string{"metric", "n", "Δ", "CI", "level", "p", "p adjusted", "sig", "W (secondary)", "p Wilcoxon (secondary)", "p B > A (secondary)"}, pairedRows(c.Paired))
	if md {
		w.b.WriteString("\n")
	}
	for _, p := range c.Paired {
		for _, warning := range p.Warnings {
			fmt.Fprintf(&w.b, "%s: %s\n", p.Metric, warning)
		}
		fmt.Fprintf(&w.b, "%s: sig: %s; %d non-zero pairs of %d, seed %d\n", p.Metric, p.Rule, p.NonZero, p.N, p.Seed)
	}
	for _, s := range c.Superiority {
		fmt.Fprintf(&w.b, "%s: P(B > A) = %.4f (Bayesian bootstrap of the mean difference: Dirichlet(1, …, 1) weights on the paired queries, %d draws, seed %d)\n", s.Metric, s.P, s.Draws, s.Seed)
	}
	if len(c.Binary) > 0 {
		w.heading("Success-type metrics (McNemar, B vs A)")
		var rows [][]string
		for _, b := range c.Binary {
			rows = append(rows, []string{b.Metric, fmt.Sprint(b.BWins), fmt.Sprint(b.AWins), fmt.Sprint(b.Ties),
				fmt.Sprintf("%.4g", b.PExact), fmt.Sprintf("%.4g", b.ChiSquare), fmt.Sprintf("%.4g", b.PChiSquare), fmt.Sprintf("%.4f", b.PSuperior)})
		}
		w.table([]string{"metric", "B only", "A only", "same", "p exact (sign test)", "χ² (corrected)", "p χ²", "P(B > A), Beta(1,1) prior"}, rows)
	}

	if len(c.Categories) > 0 {
		w.heading("Per category (primary)")
		var rows [][]string
		for _, cd := range c.Categories {
			ci := "[" + FormatBound(cd.Delta.Low) + ", " + FormatBound(cd.Delta.High) + "]"
			if cd.Delta.Warning != "" {
				ci = "no interval"
			}
			rows = append(rows, []string{cd.Category, fmt.Sprint(cd.N), f4(cd.A), f4(cd.B), FormatDelta(cd.Delta.Mean), ci})
		}
		w.table([]string{"category", "n", "A", "B", "Δ", "95% CI"}, rows)
	}

	if c.Segments != nil {
		w.heading(fmt.Sprintf("By %s (B; Δ: B - A)", c.Segments.By))
		var metrics []string
		for _, p := range c.Paired {
			if p.Metric != "primary" && len(metrics) < maxGroupMetrics {
				metrics = append(metrics, p.Metric)
			}
		}
		w.table(c.Segments.table("Δ", metrics))
	}

	w.heading("Result diffs")
	d := c.Diff
	w.table([]string{"queries", "Kendall tau (mean)", fmt.Sprintf("Jaccard@%d (mean)", d.JaccardK), "top-1 changed"},
		[][]string{{fmt.Sprint(d.Queries), f4(d.KendallTau), f4(d.Jaccard), fmt.Sprintf("%.1f%% (%d)", 100*d.Top1Changed, d.Top1ChangedN)}})

	w.heading(fmt.Sprintf("Queries that changed most (top %d)", len(c.Changed)))
	var rows [][]string
	for _, q := range c.Changed {
		rows = append(rows, []string{q.QueryID, q.Category, f4(q.A), f4(q.B), FormatDelta(q.Delta), top3(q.TopA), top3(q.TopB)})
	}
	w.table([]string{"query", "category", "A", "B", "Δ", "top 3 A (grade)", "top 3 B (grade)"}, rows)

	for _, warning := range c.Warnings {
		if md {
			fmt.Fprintf(&w.b, "\n> %s\n", warning)
		} else {
			fmt.Fprintf(&w.b, "warning: %s\n", warning)
		}
	}
	if c.Verdict != nil {
		if md {
			fmt.Fprintf(&w.b, "\n**Verdict:** %s\n", c.Verdict.Line)
		} else {
			fmt.Fprintf(&w.b, "verdict: %s\n", c.Verdict.Line)
		}
	}
	return w.b.String()
}

// pairedRows are the paired comparisons' rows: metric, n, Δ, interval,
// level, p, adjusted p, mark, and the secondary W and p-values ("" when
// absent).
func pairedRows(paired []Comparison) [][]string {
	var rows [][]string
	for _, p := range paired {
		var w, pw, pg *float64
		if sec := p.Secondary; sec != nil {
			w, pw, pg = sec.W, sec.PWilcoxon, sec.PGreater
		}
		rows = append(rows, []string{p.Metric, fmt.Sprint(p.N), FormatDelta(p.Delta),
			"[" + FormatBound(p.Low) + ", " + FormatBound(p.High) + "]", FormatLevel(p.Level), fmt.Sprintf("%.4g", p.P), optNum(p.PAdjusted, "%.4g"),
			significance(p), optNum(w, "%g"), optNum(pw, "%.4g"), optNum(pg, "%.4g")})
	}
	return rows
}

// textDoc writes headings and tables as text (table.Indented columns) or,
// with md, as Markdown (pipe tables; headings at level 2, or sub's level
// 3 for a section inside another document).
type textDoc struct {
	b   strings.Builder
	md  bool
	sub bool
}

// heading starts a section titled s.
func (w *textDoc) heading(s string) {
	switch {
	case w.md && w.sub:
		fmt.Fprintf(&w.b, "\n### %s\n\n", s)
	case w.md:
		fmt.Fprintf(&w.b, "\n## %s\n\n", s)
	default:
		fmt.Fprintf(&w.b, "\n%s\n", s)
	}
}

// table writes head and rows: a pipe table, or indented columns.
func (w *textDoc) table(head []string, rows [][]string) {
	t := &table.Table{Columns: table.Headers(head...), Style: table.Indented}
	for _, r := range rows {
		t.AppendStrings(r...)
	}
	f := table.Text
	if w.md {
		f = table.Markdown
	}
	t.Render(&w.b, f)
}

// para ends a Markdown table before a line of text.
func (w *textDoc) para() {
	if w.md {
		w.b.WriteString("\n")
	}
}

// FormatLevel renders a confidence level as a percentage with up to
// three decimals: "95%", "99.808%".
func FormatLevel(l float64) string {
	return strconv.FormatFloat(math.Round(l*1e5)/1e3, 'f', -1, 64) + "%"
}

func optNum(v *float64, format string) string {
	if v == nil {
		return "—"
	}
	return fmt.Sprintf(format, *v)
}

func significance(c Comparison) string {
	switch {
	case c.Mark != "":
		return c.Mark
	case c.PAdjusted == nil:
		return "?"
	}
	return "n.s."
}

// top3 renders up to three results as "id(grade)", "?" for unjudged.
func top3(docs []RankedDoc) string {
	parts := make([]string, 0, 3)
	for i, d := range docs {
		if i == 3 {
			break
		}
		g := "?"
		if d.Grade >= 0 {
			g = fmt.Sprint(d.Grade)
		}
		parts = append(parts, d.DocID+"("+g+")")
	}
	if len(parts) == 0 {
		return "—"
	}
	return strings.Join(parts, " ")
}
