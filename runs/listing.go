package runs

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/fusiontune/fusiontune/internal/table"
)

// ListFormats are the formats WriteList writes.
var ListFormats = table.All.Names()

// ListRows sums up each run of list (a Store's List) as a line of tune
// runs: status, trials, experiment, gates, the best trial and its score
// with the measure of that score (Leaderboard.Measure).
func ListRows(list []*Run) []ListRow {
	rows := make([]ListRow, 0, len(list))
	for _, r := range list {
		row := ListRow{Run: r.ID(), Status: string(r.Manifest.Status), Trials: r.Manifest.Trials,
			Experiment: r.Manifest.ExperimentName, Gates: gateStatus(r)}
		if r.LoadErr == nil {
			if lb, err := r.ReadLeaderboard(); err == nil {
				if e, ok := lb.Best(); ok {
					p := e.Primary
					row.Best, row.Measure, row.BestTrial = &p, lb.Measure(), e.Name
				}
			}
		}
		rows = append(rows, row)
	}
	return rows
}

// WriteList writes rows in format, one of ListFormats: a table (JSON:
// the rows as ListRow encodes them).
func WriteList(w io.Writer, format string, rows []ListRow) error {
	f, err := table.All.Parse(format)
	if err != nil {
		return fmt.Errorf("list: unknown format %q", format)
	}
	return table.Output{Table: listTable(rows), JSON: func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(rows)
	}}.Write(w, f)
}

// ListRow is one line of tune runs.
type ListRow struct {
	Run        string   `json:"run"`
	Status     string   `json:"status"`
	Trials     int      `json:"trials"`
	Experiment string   `json:"experiment,omitempty"`
	Gates      string   `json:"gates,omitempty"` // pass, FAIL n/m, unreadable; "" none checked
	Best       *float64 `json:"best,omitempty"`
	// Measure names what Best measures: "default composite", "NDCG@10",
	// a formula; "(dev split)" when the run tuned on a dev split.
	Measure   string `json:"measure,omitempty"`
	BestTrial string `json:"best_trial,omitempty"`
}

// listTable is rows as a table: columns two spaces apart in text, a
// missing value "—" (empty in CSV).
func listTable(rows []ListRow) *table.Table {
	t := &table.Table{Style: table.Plain, Missing: "—", Columns: []table.Column{{Header: "RUN", Key: "run"},
		{Header: "STATUS", Key: "status"}, {Header: "TRIALS", Key: "trials"}, {Header: "EXPERIMENT", Key: "experiment"},
		{Header: "GATES", Key: "gates"}, {Header: "BEST", Key: "best"}, {Header: "MEASURE", Key: "measure"}, {Header: "BEST TRIAL", Key: "best_trial"}}}
	for _, r := range rows {
		var best any
		if r.Best != nil {
			best = fmt.Sprintf("%.4f", *r.Best)
		}
		t.Append(r.Run, r.Status, r.Trials, orNil(r.Experiment), orNil(r.Gates), best, orNil(r.Measure), orNil(r.BestTrial))
	}
	return t
}

// orNil is s, or nil (a missing cell) for "".
func orNil(s string) any {
	if s == "" {
		return nil
	}
	return s
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
