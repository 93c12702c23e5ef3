package runs

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
)

// ListFormats are the formats WriteList writes.
var ListFormats = []string{"text", "json", "md", "csv"}

// ListRows sums up each run of list (a Store's List) as a line of tune
// runs: status, trials, experiment, gates, best trial.
func ListRows(list []*Run) []ListRow {
	rows := make([]ListRow, 0, len(list))
	for _, r := range list {
		row := ListRow{Run: r.ID(), Status: string(r.Manifest.Status), Trials: r.Manifest.Trials,
			Experiment: r.Manifest.ExperimentName, Gates: gateStatus(r)}
		if r.LoadErr == nil {
			if lb, err := r.ReadLeaderboard(); err == nil {
				if e, ok := lb.Best(); ok {
					p := e.Primary
					row.Best, row.BestTrial = &p, e.Name
				}
			}
		}
		rows = append(rows, row)
	}
	return rows
}

// WriteList writes rows in format, one of ListFormats.
func WriteList(w io.Writer, format string, rows []ListRow) error {
	write, ok := map[string]func(io.Writer, []ListRow) error{
		"text": writeListText, "json": writeListJSON, "md": writeListMarkdown, "csv": writeListCSV,
	}[format]
	if !ok {
		return fmt.Errorf("list: unknown format %q", format)
	}
	return write(w, rows)
}

// ListRow is one line of tune runs.
type ListRow struct {
	Run        string   `json:"run"`
	Status     string   `json:"status"`
	Trials     int      `json:"trials"`
	Experiment string   `json:"experiment,omitempty"`
	Gates      string   `json:"gates,omitempty"` // pass, FAIL n/m, unreadable; "" none checked
	Best       *float64 `json:"best,omitempty"`
	BestTrial  string   `json:"best_trial,omitempty"`
}

var runsHeader = []string{"RUN", "STATUS", "TRIALS", "EXPERIMENT", "GATES", "BEST", "BEST TRIAL"}

func (r ListRow) cells(none string) []string {
	best := none
	if r.Best != nil {
		best = fmt.Sprintf("%.4f", *r.Best)
	}
	or := func(s string) string {
		if s == "" {
			return none
		}
		return s
	}
	return []string{r.Run, r.Status, strconv.Itoa(r.Trials), or(r.Experiment), or(r.Gates), best, or(r.BestTrial)}
}

func writeListText(w io.Writer, rows []ListRow) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, strings.Join(runsHeader, "\t"))
	for _, r := range rows {
		fmt.Fprintln(tw, strings.Join(r.cells("—"), "\t"))
	}
	return tw.Flush()
}

func writeListMarkdown(w io.Writer, rows []ListRow) error {
	cells := make([][]string, len(rows))
	for i, r := range rows {
		cells[i] = r.cells("—")
	}
	var b strings.Builder
	MarkdownTable(&b, runsHeader, cells)
	_, err := io.WriteString(w, b.String())
	return err
}

func writeListCSV(w io.Writer, rows []ListRow) error {
	cw := csv.NewWriter(w)
	header := make([]string, len(runsHeader))
	for i, h := range runsHeader {
		header[i] = strings.ToLower(strings.ReplaceAll(h, " ", "_"))
	}
	if err := cw.Write(header); err != nil {
		return err
	}
	for _, r := range rows {
		if err := cw.Write(r.cells("")); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

func writeListJSON(w io.Writer, rows []ListRow) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(rows)
}

// gateStatus sums up a run's gates.json: "pass", "FAIL 2/5", "unreadable",
// or "" when no gates were checked.
func gateStatus(r *Run) string {
	if r.LoadErr != nil {
		return ""
	}
	g, ok, err := r.ReadGates()
	switch {
	case err != nil:
		return "unreadable"
	case !ok:
		return ""
	case g.Pass:
		return "pass"
	}
	return fmt.Sprintf("FAIL %d/%d", len(g.Failed()), len(g.Results))
}
