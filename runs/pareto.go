package runs

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/olekukonko/tablewriter"
)

// ParetoView is the leaderboard joined with latency.json (tune leaderboard
// --pareto): each measured trial's quality and latency, the Pareto front
// of quality against p95 latency, and the winner under the constraints.
type ParetoView struct {
	Primary     string      `json:"primary"`
	Concurrency int         `json:"concurrency"`
	Note        string      `json:"note"`
	Trials      []ParetoRow `json:"trials"`
	// Front is latency.json's Pareto front, by p95.
	Front       []ParetoPoint `json:"front"`
	Constraints []string      `json:"constraints,omitempty"`
	Winner      string        `json:"winner,omitempty"`
}

// ParetoRow is one measured trial: its leaderboard rank and primary
// score, the effective latency figures (Source: repeat for the finalists'
// medians, sweep for the trial's own live queries), the repeats' p95
// range, and whether it is on the front or excluded by a constraint.
type ParetoRow struct {
	Rank     int            `json:"rank"`
	Name     string         `json:"name"`
	Primary  float64        `json:"primary"`
	Source   string         `json:"source"`
	Latency  LatencyStats   `json:"latency"`
	Spread   *LatencySpread `json:"spread,omitempty"`
	Repeats  int            `json:"repeats,omitempty"`
	Front    bool           `json:"front"`
	Excluded bool           `json:"excluded,omitempty"`
}

// Pareto joins the leaderboard with the latency measurements: the
// measured trials in leaderboard order.
func (lb Leaderboard) Pareto(l Latency) ParetoView {
	v := ParetoView{Primary: lb.Primary, Concurrency: l.Concurrency, Note: l.Note, Front: l.Pareto,
		Constraints: l.Constraints, Winner: l.Winner, Trials: []ParetoRow{}}
	if v.Front == nil {
		v.Front = []ParetoPoint{}
	}
	for _, e := range lb.Trials {
		t, ok := l.Find(e.Name)
		if !ok {
			continue
		}
		s, src, ok := t.Effective()
		if !ok {
			continue
		}
		v.Trials = append(v.Trials, ParetoRow{Rank: e.Rank, Name: e.Name, Primary: e.Primary, Source: src, Latency: s,
			Spread: t.Spread, Repeats: len(t.Repeats), Front: l.OnFront(e.Name), Excluded: t.Excluded})
	}
	return v
}

// Render writes the view in format: text, json, md or csv.
func (v ParetoView) Render(w io.Writer, format string) error {
	switch format {
	case "json":
		data, err := MarshalJSON(v)
		if err != nil {
			return err
		}
		_, err = w.Write(data)
		return err
	case "csv":
		cw := csv.NewWriter(w)
		_ = cw.Write([]string{"rank", "trial", "primary", "p50_ms", "p95_ms", "p99_ms", "qps", "p95_min_ms", "p95_max_ms", "source", "front", "excluded"})
		for _, r := range v.Trials {
			lo, hi := "", ""
			if r.Spread != nil {
				lo, hi = num(r.Spread.P95MinMS), num(r.Spread.P95MaxMS)
			}
			_ = cw.Write([]string{strconv.Itoa(r.Rank), r.Name, num(r.Primary), num(r.Latency.P50MS), num(r.Latency.P95MS),
				num(r.Latency.P99MS), num(r.Latency.QPS), lo, hi, r.Source, strconv.FormatBool(r.Front), strconv.FormatBool(r.Excluded)})
		}
		cw.Flush()
		return cw.Error()
	case "text", "table", "":
		tw := tablewriter.NewWriter(w)
		tw.SetHeader(paretoHeader)
		tw.SetAutoFormatHeaders(false)
		tw.SetAutoWrapText(false)
		for _, r := range v.Trials {
			tw.Append(r.Cells())
		}
		tw.Render()
		_, err := io.WriteString(w, v.footer())
		return err
	case "md", "markdown":
		var b strings.Builder
		rows := make([][]string, len(v.Trials))
		for i, r := range v.Trials {
			rows[i] = r.Cells()
		}
		MarkdownTable(&b, paretoHeader, rows)
		b.WriteString("\n" + v.footer())
		_, err := io.WriteString(w, b.String())
		return err
	}
	return fmt.Errorf("runs: unknown format %q (want one of %s)", format, strings.Join(Formats, ", "))
}

var paretoHeader = []string{"#", "trial", "primary", "p50 ms", "p95 ms", "p99 ms", "qps", "p95 range ms", "from", "front"}

// Cells renders the row as the text and Markdown tables show it.
func (r ParetoRow) Cells() []string {
	ms := func(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }
	qps, rng := "—", "—"
	if r.Latency.QPS > 0 {
		qps = strconv.FormatFloat(r.Latency.QPS, 'f', 0, 64)
	}
	if r.Spread != nil {
		rng = ms(r.Spread.P95MinMS) + "–" + ms(r.Spread.P95MaxMS)
	}
	src := r.Source
	if r.Repeats > 0 {
		src = fmt.Sprintf("median of %d", r.Repeats)
	}
	front := ""
	if r.Front {
		front = "*"
	}
	if r.Excluded {
		front += " excluded"
	}
	return []string{strconv.Itoa(r.Rank), r.Name, f4(r.Primary), ms(r.Latency.P50MS), ms(r.Latency.P95MS), ms(r.Latency.P99MS), qps, rng, src, strings.TrimSpace(front)}
}

func (v ParetoView) footer() string {
	var b strings.Builder
	fmt.Fprintf(&b, "primary: %s; latency: client-side, concurrency %d, from %s (measured, noisy: not in leaderboard.json)\n", v.Primary, v.Concurrency, LatencyFile)
	var names []string
	for _, p := range v.Front {
		names = append(names, p.Name)
	}
	fmt.Fprintf(&b, "Pareto front (primary × p95, *): %s\n", strings.Join(names, ", "))
	if len(v.Constraints) > 0 {
		winner := v.Winner
		if winner == "" {
			winner = "none meets them"
		}
		fmt.Fprintf(&b, "constraints: %s; winner: %s\n", strings.Join(v.Constraints, "; "), winner)
	}
	return b.String()
}
