package runs

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/fusiontune/fusiontune/internal/table"
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
	// labels are the trials' labels (Leaderboard.Labels), which the text
	// and Markdown tables show them under.
	labels map[string]string
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
		Constraints: l.Constraints, Winner: l.Winner, Trials: []ParetoRow{}, labels: lb.Labels()}
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
	shown := &table.Table{Columns: table.Headers(paretoHeader...), Notes: []string{v.footer()}}
	for _, r := range v.Trials {
		shown.AppendStrings(r.Cells()...)
	}
	shown.Rows = relabel(shown.Rows, 1, v.labels)
	return render(w, format, table.All, table.Output{Table: shown, CSV: v.renderCSV, JSON: jsonOf(v)})
}

// renderCSV writes a row per trial with its figures in full, the p95
// range's ends ("" without repeats), the source and the marks.
func (v ParetoView) renderCSV(w io.Writer) error {
	t := &table.Table{Columns: table.Headers("rank", "trial", "primary", "p50_ms", "p95_ms", "p99_ms", "qps", "p95_min_ms", "p95_max_ms", "source", "front", "excluded")}
	for _, r := range v.Trials {
		lo, hi := "", ""
		if r.Spread != nil {
			lo, hi = num(r.Spread.P95MinMS), num(r.Spread.P95MaxMS)
		}
		t.AppendStrings(strconv.Itoa(r.Rank), r.Name, num(r.Primary), num(r.Latency.P50MS), num(r.Latency.P95MS),
			num(r.Latency.P99MS), num(r.Latency.QPS), lo, hi, r.Source, strconv.FormatBool(r.Front), strconv.FormatBool(r.Excluded))
	}
	return t.Render(w, table.CSV)
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

// footer is the note below the table: what the figures are, the front
// and the constraints' winner, a line each (one paragraph in Markdown).
func (v ParetoView) footer() string {
	var names []string
	for _, p := range v.Front {
		names = append(names, p.Name)
	}
	lines := []string{fmt.Sprintf("primary: %s; latency: client-side, concurrency %d, from %s (measured, noisy: not in leaderboard.json)", v.Primary, v.Concurrency, LatencyFile),
		fmt.Sprintf("Pareto front (primary × p95, *): %s", strings.Join(names, ", "))}
	if len(v.Constraints) > 0 {
		winner := v.Winner
		if winner == "" {
			winner = "none meets them"
		}
		lines = append(lines, fmt.Sprintf("constraints: %s; winner: %s", strings.Join(v.Constraints, "; "), winner))
	}
	return strings.Join(lines, "\n")
}
