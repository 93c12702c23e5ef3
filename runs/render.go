package runs

import (
	"encoding/csv"
	"fmt"
	"io"
	"sort"
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
		return lb.Metrics
	}
	return lb.Metrics[:tableMetrics]
}

func (lb Leaderboard) header(metrics []string) []string {
	h := []string{"#", "trial", "primary", "Δ baseline"}
	h = append(h, metrics...)
	return append(h, "routing", "status")
}

func (lb Leaderboard) row(e Entry, metrics []string) []string {
	r := []string{strconv.Itoa(e.Rank), e.Name, f4(e.Primary), "—"}
	if e.Delta != nil {
		r[3] = fmt.Sprintf("%+.4f", *e.Delta)
	}
	if e.Status != StatusOK && e.Status != StatusPruned {
		r[2] = "—"
	}
	for _, m := range metrics {
		if v, ok := e.Scorecard[m]; ok {
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

func (lb Leaderboard) renderText(w io.Writer) error {
	metrics := lb.shownMetrics()
	t := tablewriter.NewWriter(w)
	t.SetHeader(lb.header(metrics))
	t.SetAutoFormatHeaders(false)
	t.SetAutoWrapText(false)
	t.SetBorder(true)
	for _, e := range lb.Trials {
		t.Append(lb.row(e, metrics))
	}
	t.Render()
	fmt.Fprintf(w, "primary: %s\n", lb.Primary)
	for _, e := range lb.Trials {
		if e.Error != "" {
			fmt.Fprintf(w, "%s: %s\n", e.Name, e.Error)
		}
	}
	return nil
}

func (lb Leaderboard) renderMarkdown(w io.Writer) error {
	metrics := lb.shownMetrics()
	h := lb.header(metrics)
	var b strings.Builder
	fmt.Fprintf(&b, "Primary score: %s\n\n", lb.Primary)
	b.WriteString("| " + strings.Join(h, " | ") + " |\n")
	b.WriteString("|" + strings.Repeat(" --- |", len(h)) + "\n")
	for _, e := range lb.Trials {
		cells := lb.row(e, metrics)
		for i, c := range cells {
			cells[i] = strings.ReplaceAll(c, "|", `\|`)
		}
		b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
	}
	for _, warn := range lb.Warnings {
		fmt.Fprintf(&b, "\n> %s\n", warn)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func (lb Leaderboard) renderCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	paramKeys := map[string]bool{}
	for _, e := range lb.Trials {
		for k := range e.Params {
			paramKeys[k] = true
		}
	}
	keys := make([]string, 0, len(paramKeys))
	for k := range paramKeys {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	head := []string{"rank", "trial", "status", "mode", "primary", "delta_vs_baseline", "routing_accuracy", "queries"}
	head = append(head, lb.Metrics...)
	head = append(head, keys...)
	if err := cw.Write(head); err != nil {
		return err
	}
	for _, e := range lb.Trials {
		row := []string{strconv.Itoa(e.Rank), e.Name, e.Status, e.Mode, num(e.Primary), "", "", strconv.Itoa(e.Queries)}
		if e.Delta != nil {
			row[5] = num(*e.Delta)
		}
		if e.Routing != nil {
			row[6] = num(*e.Routing)
		}
		for _, m := range lb.Metrics {
			if v, ok := e.Scorecard[m]; ok {
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

func num(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
