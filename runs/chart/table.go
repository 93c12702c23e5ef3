package chart

import (
	"fmt"
	"html/template"
	"strings"

	"github.com/fusiontune/fusiontune/internal/paramtext"
	"github.com/fusiontune/fusiontune/runs"
)

// dataTable is a chart's data as an HTML table folded in a <details>
// element ("data"), for screen readers and for reading exact values: the
// caption names the chart, head the columns, rows the cells (escaped
// here). A column whose cells are all numbers is right-aligned (class
// num).
func dataTable(caption string, head []string, rows [][]string) template.HTML {
	esc := template.HTMLEscapeString
	num := make([]bool, len(head))
	for c := range head {
		num[c] = len(rows) > 0
		for _, r := range rows {
			if c < len(r) && !isNumber(r[c]) {
				num[c] = false
				break
			}
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<details class="chart-data"><summary>data</summary><table><caption>%s</caption><thead><tr>`, esc(caption))
	for c, h := range head {
		fmt.Fprintf(&b, `<th scope="col"%s>%s</th>`, numClass(num[c]), esc(h))
	}
	b.WriteString(`</tr></thead><tbody>`)
	for _, r := range rows {
		b.WriteString(`<tr>`)
		for c, v := range r {
			fmt.Fprintf(&b, `<td%s>%s</td>`, numClass(c < len(num) && num[c]), esc(v))
		}
		b.WriteString(`</tr>`)
	}
	b.WriteString(`</tbody></table></details>`)
	return template.HTML(b.String()) // every text inside was escaped above
}

func numClass(num bool) string {
	if num {
		return ` class="num"`
	}
	return ""
}

// isNumber reports whether s reads as a number (signed, or "—" for none).
func isNumber(s string) bool {
	if s == "—" {
		return true
	}
	_, ok := paramtext.Float(strings.TrimPrefix(s, "+"))
	return ok
}

// HistoryData is the optimization history's data as a table (see
// dataTable): each scored trial in trial order with its status, primary
// score (partial for a pruned trial) and the best complete score so far.
func HistoryData(lb runs.Leaderboard) template.HTML {
	drawn := scored(lb)
	if len(drawn) < 2 {
		return ""
	}
	var rows [][]string
	best, started := 0.0, false
	for _, e := range drawn {
		status := "ok"
		if e.Status == runs.StatusPruned {
			status = fmt.Sprintf("pruned at %.0f%% (partial score)", 100*e.Fraction)
		} else if !started || e.Primary > best {
			best, started = e.Primary, true
		}
		so := "—"
		if started {
			so = fmt.Sprintf("%.4f", best)
		}
		rows = append(rows, []string{fmt.Sprint(e.Index), e.Name, status, fmt.Sprintf("%.4f", e.Primary), so})
	}
	return dataTable("optimization history: primary ("+lb.Measure()+") by trial number",
		[]string{"trial #", "trial", "status", "primary", "best so far"}, rows)
}

// DeltasData is the per-query differences' data as a table: each query's
// Δ (B − A), sorted as the chart draws them, and whether B is better,
// tied (|Δ| ≤ tie) or worse.
func DeltasData(ds []Delta, tie float64, what string) template.HTML {
	if len(ds) == 0 {
		return ""
	}
	ds = sortedDeltas(ds)
	rows := make([][]string, len(ds))
	for i, d := range ds {
		out := "tied"
		switch {
		case d.Value > tie:
			out = "better"
		case d.Value < -tie:
			out = "worse"
		}
		rows[i] = []string{d.Query, fmt.Sprintf("%+.4f", d.Value), out}
	}
	return dataTable("per-query differences, "+what, []string{"query", "Δ", "outcome"}, rows)
}
