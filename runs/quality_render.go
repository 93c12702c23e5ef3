package runs

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/fusiontune/fusiontune/internal/table"
)

// qualityFormats are the formats Quality.Render accepts.
var qualityFormats = table.Formats{table.Text, table.Markdown, table.JSON}

// QualityFormats are the names of the formats Quality.Render accepts.
var QualityFormats = qualityFormats.Names()

// Render writes the quality check as text (the terminal summary), md
// (Markdown, for a pull-request comment) or json.
func (q Quality) Render(w io.Writer, format string) error {
	return render(w, format, qualityFormats, document(q.render, q))
}

func (q Quality) render(md bool) string {
	w := &textDoc{md: md, sub: true}
	title := fmt.Sprintf("Search quality: %s (%d queries, primary %.4f)", passFail(q.GatesPass), q.Queries, q.Primary)
	if md {
		fmt.Fprintf(&w.b, "## %s\n\nRun `%s`, backend %s, evaluated as it runs.\n", title, q.Run, q.Backend)
	} else {
		fmt.Fprintf(&w.b, "%s\nrun %s, backend %s, evaluated as it runs\n", title, q.Run, q.Backend)
	}
	if q.Filter != "" {
		fmt.Fprintln(&w.b, FilterNote(q.Filter))
	}
	if q.Failed > 0 {
		fmt.Fprintf(&w.b, "%d queries failed to search (eval.on_query_error %s).\n", q.Failed, q.OnQueryError)
	}
	q.renderScorecard(w)
	if q.Segments != nil {
		w.heading("By " + q.Segments.By)
		w.table(q.Segments.table("Δ reference", q.Metrics[:min(len(q.Metrics), maxGroupMetrics)]))
	}
	q.renderGates(w)
	if q.Against != nil {
		q.Against.render(w)
	}
	if q.FailureCount > 0 {
		w.heading(fmt.Sprintf("Failures (%d)", q.FailureCount))
		for _, f := range q.Failures {
			q.renderFailure(&w.b, f, md)
		}
		if n := q.FailureCount - len(q.Failures); n > 0 {
			fmt.Fprintf(&w.b, "… and %d more (all in %s of the run directory)\n", n, QualityFile)
		}
	}
	return w.b.String()
}

// renderScorecard draws the scorecard overall, per category (with
// routing) and per difficulty; a grouping the segment table shows
// (--by) is left to it, unless it has routing.
func (q Quality) renderScorecard(w *textDoc) {
	w.heading("Scorecard")
	rows := [][]string{{"primary", f4(q.Primary)}}
	for _, m := range q.Metrics {
		rows = append(rows, []string{m, f4(q.Scorecard[m])})
	}
	if q.Routing != nil {
		rows = append(rows, []string{"routing accuracy", f4(*q.Routing)})
	}
	w.table([]string{"metric", "value"}, rows)
	if q.TopLabels != nil {
		w.para()
		fmt.Fprintln(&w.b, q.TopLabels.Line())
	}
	for _, g := range []struct {
		name   string
		groups map[string]map[string]float64
		route  bool
	}{{"category", q.Categories, len(q.RoutingByCategory) > 0}, {"difficulty", q.Difficulties, false}} {
		if len(g.groups) == 0 || q.Segments != nil && q.Segments.By == g.name && !g.route {
			continue // the segment table below shows it, with more
		}
		w.heading("By " + g.name)
		shown := q.Metrics[:min(len(q.Metrics), maxGroupMetrics)]
		head := append([]string{g.name, "primary"}, shown...)
		if g.route {
			head = append(head, "routing")
		}
		rows = nil
		for _, name := range sortedNames(g.groups) {
			r := []string{name, f4(g.groups[name]["primary"])}
			for _, m := range shown {
				r = append(r, f4(g.groups[name][m]))
			}
			if g.route {
				cell := "-"
				if v, ok := q.RoutingByCategory[name]; ok {
					cell = f4(v)
				}
				r = append(r, cell)
			}
			rows = append(rows, r)
		}
		w.table(head, rows)
	}
}

func (q Quality) renderGates(w *textDoc) {
	if len(q.Gates) == 0 {
		return
	}
	w.heading("Gates")
	var rows [][]string
	for _, g := range q.Gates {
		v := "-"
		if g.Measured {
			v = f4(g.Value)
		}
		res := "PASS"
		if !g.Pass {
			res = "FAIL"
		}
		rows = append(rows, []string{res, g.Gate, v, g.Detail})
	}
	w.table([]string{"result", "gate", "value", "detail"}, rows)
}

// render draws the comparison with the reference: per metric, then the
// primary score per category, then the warnings.
func (a *Against) render(w *textDoc) {
	w.heading("Against " + a.Reference)
	if a.GoldenHashDiffers {
		w.b.WriteString("warning: the reference was made on another version of the golden set\n\n")
	}
	var rows [][]string
	rule := ""
	for _, m := range a.Metrics {
		p := m.Paired
		rows = append(rows, []string{m.Metric, f4(m.Reference), f4(m.Current), FormatDelta(p.Delta),
			"[" + FormatBound(p.Low) + ", " + FormatBound(p.High) + "]", optNum(p.PAdjusted, "%.4g"), m.Verdict})
		if rule == "" {
			rule = p.Rule
		}
	}
	w.table([]string{"metric", "reference", "current", "Δ", "CI", "p adjusted", "verdict"}, rows)
	if rule != "" {
		w.para()
		fmt.Fprintf(&w.b, "Decision rule: %s.\n", rule)
	}
	if len(a.Categories) > 0 {
		w.para()
		w.b.WriteString("Primary score per category:\n")
		w.para()
		rows = nil
		for _, c := range a.Categories {
			v := "same"
			if c.Delta.Warning == "" && c.Delta.Low > 0 {
				v = "better"
			} else if c.Delta.Warning == "" && c.Delta.High < 0 {
				v = "worse"
			}
			rows = append(rows, []string{c.Category, fmt.Sprint(c.N), f4(c.A), f4(c.B), FormatDelta(c.Delta.Mean),
				"[" + FormatBound(c.Delta.Low) + ", " + FormatBound(c.Delta.High) + "]", v})
		}
		w.table([]string{"category", "n", "reference", "current", "Δ", "CI", "verdict"}, rows)
	}
	if len(a.Warnings) > 0 {
		w.para()
	}
	for _, warn := range a.Warnings {
		fmt.Fprintf(&w.b, "warning: %s\n", warn)
	}
}

func (q Quality) renderFailure(b *strings.Builder, f Failure, md bool) {
	item, sub := "", "    "
	if md {
		item, sub = "- ", "  - "
	}
	cat := ""
	if f.Category != "" {
		cat = " [" + f.Category + "]"
	}
	fmt.Fprintf(b, "%s%s%s %q: %s\n", item, code(f.QueryID, md), cat, f.Query, joinReasons(f.Reasons))
	for _, e := range f.Expected {
		what := ""
		switch {
		case e.Passage != "":
			what = fmt.Sprintf("passage %q", e.Passage)
		case e.Pattern != "":
			what = "pattern " + code(e.Pattern, md)
		default:
			what = "document " + code(e.DocID, md)
		}
		fmt.Fprintf(b, "%sexpected (grade %d): %s\n", sub, e.Grade, what)
	}
	if len(f.Expected) > 0 {
		if f.BestRank > 0 {
			fmt.Fprintf(b, "%sbest rank: %d\n", sub, f.BestRank)
		} else {
			fmt.Fprintf(b, "%sbest rank: none (not in the top %d)\n", sub, maxRecorded)
		}
	}
	if f.ExpectedRouting != "" && f.Routing != f.ExpectedRouting {
		fmt.Fprintf(b, "%srouting: %s, expected %s\n", sub, f.Routing, f.ExpectedRouting)
	}
	for i, d := range f.Top {
		g := "unjudged"
		if d.Grade >= 0 {
			g = fmt.Sprintf("grade %d", d.Grade)
		}
		text := ""
		if d.Text != "" {
			text = ": " + oneLine(d.Text, 160)
		}
		fmt.Fprintf(b, "%s%d. %s (%s)%s\n", sub, i+1, code(d.DocID, md), g, text)
	}
	if len(f.Top) == 0 {
		fmt.Fprintf(b, "%sno results\n", sub)
	}
}

// maxGroupMetrics is how many of the scorecard's metrics the per-group
// tables show (every one is in quality.json).
const maxGroupMetrics = 4

// maxRecorded is how deep a run records each query's results.
const maxRecorded = 20

func code(s string, md bool) string {
	if md {
		return "`" + strings.ReplaceAll(s, "`", "'") + "`"
	}
	return s
}

func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		s = string(r[:n]) + "…"
	}
	return s
}

func sortedNames(m map[string]map[string]float64) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
