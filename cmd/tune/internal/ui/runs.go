package ui

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/fusiontune/fusiontune/internal/paramtext"
	"github.com/fusiontune/fusiontune/tuner/dataset"

	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/runs/report"
)

// runRow is one run on the runs page.
type runRow struct {
	runs.ListRow
	Dataset  string
	Date     string
	Promoted string // trial promoted from this run, "" none
}

type runsData struct {
	Rows                []runRow
	Datasets, Exps      []string
	Dataset, Experiment string
}

// runsPage lists the recorded runs, newest first, filtered by dataset and
// experiment.
func (s *Server) runsPage(w http.ResponseWriter, r *http.Request) {
	list, err := s.o.Store.List()
	if err != nil && len(list) == 0 {
		list = nil
	}
	promoted := s.promotedTrials()
	rows := runs.ListRows(list)
	d := runsData{Dataset: r.FormValue("dataset"), Experiment: r.FormValue("experiment")}
	seenD, seenE := map[string]bool{}, map[string]bool{}
	for i := len(list) - 1; i >= 0; i-- {
		run := list[i]
		row := runRow{ListRow: rows[i], Dataset: dataset.RunDatasetID(run), Date: run.Manifest.Started.UTC().Format("2006-01-02 15:04"),
			Promoted: promoted[run.ID()]}
		if !seenD[row.Dataset] {
			seenD[row.Dataset] = true
			d.Datasets = append(d.Datasets, row.Dataset)
		}
		if !seenE[row.Experiment] {
			seenE[row.Experiment] = true
			d.Exps = append(d.Exps, row.Experiment)
		}
		if (d.Dataset == "" || d.Dataset == row.Dataset) && (d.Experiment == "" || d.Experiment == row.Experiment) {
			d.Rows = append(d.Rows, row)
		}
	}
	sort.Strings(d.Datasets)
	sort.Strings(d.Exps)
	s.render(w, "runs", "Runs", d)
}

// promotion is one line of the runs directory's promotions.jsonl.
type promotion struct {
	Time   string         `json:"time"`
	Action string         `json:"action"`
	Run    string         `json:"run"`
	Trial  string         `json:"trial"`
	Params map[string]any `json:"params"`
	Status string         `json:"status"`
	Error  string         `json:"error"`
	Forced bool           `json:"forced"`
}

// promotions reads the promotion journal (none when absent).
func (s *Server) promotions() []promotion {
	f, err := os.Open(filepath.Join(s.o.Store.Dir, runs.PromotionsFile))
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []promotion
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	for sc.Scan() {
		var p promotion
		if json.Unmarshal(sc.Bytes(), &p) == nil && p.Status != "pending" {
			out = append(out, p)
		}
	}
	return out
}

// promotedTrials maps a run id to the trial last promoted from it.
func (s *Server) promotedTrials() map[string]string {
	out := map[string]string{}
	for _, p := range s.promotions() {
		if p.Action == "promote" && p.Status == "ok" {
			out[p.Run] = p.Trial
		}
	}
	return out
}

// reportPage renders the run's static report.
func (s *Server) reportPage(w http.ResponseWriter, r *http.Request) {
	run, err := s.resolve(r.PathValue("id"))
	if err != nil {
		s.fail(w, http.StatusNotFound, err)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if err := report.Render(w, run, report.DefaultOptions()); err != nil {
		s.fail(w, http.StatusInternalServerError, err)
	}
}

// filterEntries keeps the entries whose parameters match filter:
// space-separated terms, each "name=value" (a parameter of the trial
// equal to value, written exactly or rounded as the page shows it) or
// else a substring of the trial's name, label or parameters.
func filterEntries(es []runs.Entry, labels map[string]string, filter string) []runs.Entry {
	out := make([]runs.Entry, 0, len(es))
	terms := strings.Fields(filter)
next:
	for _, e := range es {
		text := e.Name + " " + labels[e.Name] + " " + paramText(e)
		for _, t := range terms {
			if k, v, ok := strings.Cut(t, "="); ok {
				if pv, has := e.Value(k); has {
					if paramtext.Exact(pv) != v && paramtext.Rounded(pv) != v && fmt.Sprint(pv) != v {
						continue next
					}
					continue
				}
			}
			if !strings.Contains(text, t) {
				continue next
			}
		}
		out = append(out, e)
	}
	return out
}

func b01(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

// urlq escapes a query value.
func urlq(s string) string { return url.QueryEscape(s) }

// urlPath escapes a path segment.
func urlPath(s string) string { return url.PathEscape(s) }
