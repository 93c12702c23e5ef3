package main

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/fusiontune/fusiontune/runs"
)

// runRow is one line of tune runs.
type runRow struct {
	Run        string   `json:"run"`
	Status     string   `json:"status"`
	Trials     int      `json:"trials"`
	Experiment string   `json:"experiment,omitempty"`
	Gates      string   `json:"gates,omitempty"` // pass, FAIL n/m, unreadable; "" none checked
	Best       *float64 `json:"best,omitempty"`
	BestTrial  string   `json:"best_trial,omitempty"`
}

func runRuns(ctx context.Context, a *app, args []string) error {
	fs := newFlagSet("runs", "[--runs-dir DIR] [--format text|json|md|csv]", a.stderr)
	config := fs.String("config", "", "settings file (default ./tune.yaml when present)")
	fs.String("runs-dir", defaultRunsDir, "directory of run records (setting runs_dir)")
	format := fs.String("format", "text", "text, json, md or csv")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	render, ok := map[string]func(io.Writer, []runRow) error{
		"text": renderRunsText, "json": renderRunsJSON, "md": renderRunsMarkdown, "csv": renderRunsCSV,
	}[*format]
	if !ok {
		return usageErrorf("runs: --format must be text, json, md or csv (got %q)", *format)
	}
	s, err := loadSettings(*config, fs, map[string]string{"runs-dir": "runs_dir"})
	if err != nil {
		return err
	}
	store, err := a.openStore(s.RunsDir)
	if err != nil {
		return err
	}
	a.warnUnfinished(s, store)
	list, err := store.List()
	if err != nil {
		return err
	}
	if len(list) == 0 {
		fmt.Fprintf(a.stderr, "no runs in %s\n", s.RunsDir)
		if *format != "json" {
			return nil
		}
	}
	rows := make([]runRow, 0, len(list))
	for _, r := range list {
		row := runRow{Run: r.ID(), Status: string(r.Manifest.Status), Trials: r.Manifest.Trials,
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
	return render(a.stdout, rows)
}

// runsHeader and cells are the columns of the text, Markdown and CSV forms.
var runsHeader = []string{"RUN", "STATUS", "TRIALS", "EXPERIMENT", "GATES", "BEST", "BEST TRIAL"}

func (r runRow) cells(none string) []string {
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

func renderRunsText(w io.Writer, rows []runRow) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, strings.Join(runsHeader, "\t"))
	for _, r := range rows {
		fmt.Fprintln(tw, strings.Join(r.cells("—"), "\t"))
	}
	return tw.Flush()
}

func renderRunsMarkdown(w io.Writer, rows []runRow) error {
	cells := make([][]string, len(rows))
	for i, r := range rows {
		cells[i] = r.cells("—")
	}
	var b strings.Builder
	runs.MarkdownTable(&b, runsHeader, cells)
	_, err := io.WriteString(w, b.String())
	return err
}

func renderRunsCSV(w io.Writer, rows []runRow) error {
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

func renderRunsJSON(w io.Writer, rows []runRow) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(rows)
}

// gateStatus sums up a run's gates.json: "pass", "FAIL 2/5", "unreadable",
// or "" when no gates were checked.
func gateStatus(r *runs.Run) string {
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
